import { styleText } from 'node:util';

/**
 * Colour for PASS, WARN and FAIL (and the OK or FAILED line of build) on a terminal. FORCE_COLOR
 * decides when set: '', 1, true, 2 or 3 turn it on, even into a pipe, and any other value off, as
 * Node.js reads it (tty.getColorDepth, which util.styleText asks: FORCE_COLOR=yes colours nothing);
 * otherwise NO_COLOR (any value) turns it off; otherwise stdout must be a terminal that has colours.
 */
export function colourWanted(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return FORCE_COLOR_ON.has(force);
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true && (stream.hasColors?.() ?? false);
}

const FORCE_COLOR_ON = new Set(['', '1', 'true', '2', '3']);

const STYLE = { PASS: 'green', OK: 'green', WARN: 'yellow', FAIL: 'red', FAILED: 'red' } as const;

/** Colours the status words of text that pdsnap wrote (after escaping: the escapes added here are ours). */
export function colourStatus(text: string): string {
  return text.replace(/\b(PASS|OK|WARN|FAILED|FAIL)\b/g, (word) => styleText(STYLE[word as keyof typeof STYLE], word));
}
