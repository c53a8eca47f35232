import { LineCounter } from './line-index.js';
import { MAX_JSON_DEPTH } from './source-limits.js';

/**
 * The one way pdsnap reads JSON from a source file: JSON.parse, plus what it lets through silently
 * and a source must not rely on: a key written twice in one object (JSON.parse keeps the last, so
 * which value is published would depend on an accident of editing), a number too large for a
 * double (a 400-digit number becomes Infinity), and nesting deeper than MAX_JSON_DEPTH (the
 * value would overflow the stack of whatever walks it later).
 */
export class JsonTextError extends Error {
  constructor(
    message: string,
    /** 1-based line, when known. */
    readonly line: number | undefined,
  ) {
    super(message);
    this.name = 'JsonTextError';
  }
}

export function parseJsonText(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    throw new JsonTextError(message, position ? new LineCounter(text).lineAt(Number(position[1])) : undefined);
  }
  const problem = scanJson(text);
  if (problem) throw new JsonTextError(problem.message, new LineCounter(text).lineAt(problem.offset));
  return value;
}

/**
 * One pass over text that JSON.parse accepted, so the grammar is known to be right: only strings,
 * numbers and brackets need looking at. Object keys are tracked per open object.
 */
function scanJson(text: string): { offset: number; message: string } | undefined {
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  let index = 0;
  while (index < text.length) {
    const char = text.charCodeAt(index);
    if (char === 0x22 /* " */) {
      const end = stringEnd(text, index);
      const top = open.at(-1);
      if (top && expectKey) {
        const key = JSON.parse(text.slice(index, end)) as string;
        if (top.has(key)) return { offset: index, message: `duplicate key ${JSON.stringify(key)} in one object` };
        top.add(key);
        expectKey = false;
      }
      index = end;
    } else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      open.push(char === 0x7b ? new Set() : null);
      expectKey = char === 0x7b;
      if (open.length > MAX_JSON_DEPTH) return { offset: index, message: `nested deeper than ${MAX_JSON_DEPTH} levels` };
      index++;
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      open.pop();
      expectKey = false;
      index++;
    } else if (char === 0x2c /* , */) {
      expectKey = open.at(-1) instanceof Set;
      index++;
    } else if (char === 0x2d /* - */ || (char >= 0x30 && char <= 0x39)) {
      NUMBER.lastIndex = index;
      const token = NUMBER.exec(text)![0];
      if (!Number.isFinite(Number(token))) {
        return {
          offset: index,
          message: `number ${token.length > 24 ? `${token.slice(0, 20)}… (${token.length} characters)` : token} is out of range`,
        };
      }
      index += token.length;
    } else index++;
  }
  return undefined;
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Offset just past the closing quote of the string starting at `start`. */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  for (;;) {
    const quote = text.indexOf('"', index);
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    index = quote + 1;
  }
}
