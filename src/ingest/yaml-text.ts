import { LineCounter, parseDocument, YAMLError, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';
import { MAX_YAML_ALIASES } from './source-limits.js';

/**
 * The one way pdsnap reads YAML: front matter, calendar files and sidecars, articles/sources.yaml,
 * filings/investors.yaml and the config file. YAML 1.2 core schema (no language-specific tags,
 * nothing ever evaluated, `2026-11-21` stays text), `<<` merge keys honoured, duplicate keys refused, and at most
 * MAX_YAML_ALIASES alias expansions so that a "billion laughs" document costs a bounded amount of
 * memory and is refused.
 */
const OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  schema: 'core',
  version: '1.2',
  uniqueKeys: true,
  // `<<: *defaults` merge keys, as hand-written YAML (CI files, Rails configs) uses them: a YAML 1.1
  // feature the 1.2 core schema leaves off, so they were read as a key named "<<" and the values
  // they carried were silently lost. Their expansions count against the alias limit.
  merge: true,
  prettyErrors: true,
  logLevel: 'error',
};

export class YamlTextError extends Error {
  constructor(
    message: string,
    /** 1-based line of the text given to the parser, when it knows it. */
    readonly line: number | undefined,
  ) {
    super(message);
    this.name = 'YamlTextError';
  }
}

export function parseYamlText(text: string): unknown {
  return parseYamlDocument(text).value;
}

/** A parsed document that can still say on which line a value was written. */
export interface YamlDocument {
  value: unknown;
  /** 1-based line of the node at a path of keys and indexes, e.g. ['sources', 3]. */
  lineOf(path: (string | number)[]): number | undefined;
}

export function parseYamlDocument(text: string): YamlDocument {
  const lineCounter = new LineCounter();
  let value: unknown;
  let document;
  try {
    document = parseDocument(text, { ...OPTIONS, lineCounter });
    const firstError = document.errors[0];
    if (firstError) throw firstError;
    value = document.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    if (error instanceof YAMLError) {
      const line = error.linePos?.[0]?.line;
      const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      throw new YamlTextError(message, line);
    }
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      throw new YamlTextError(
        `more than ${MAX_YAML_ALIASES} alias expansions (a "billion laughs" document is refused, not expanded)`,
        undefined,
      );
    }
    // Anything else the parser throws (a stack overflow on absurd nesting) is this file's problem.
    throw new YamlTextError((error as Error).message.split('\n')[0]!, undefined);
  }
  const parsed = document;
  return {
    value,
    lineOf(path) {
      const node = parsed.getIn(path, true) as { range?: [number, number, number] } | undefined;
      return node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
    },
  };
}
