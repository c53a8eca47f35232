import { parse, YAMLError } from 'yaml';

/**
 * The one way pdsnap reads YAML from a source file: YAML 1.2 core schema (no language-specific
 * tags, nothing ever evaluated), duplicate keys refused, and at most MAX_YAML_ALIASES alias
 * expansions so that a "billion laughs" document costs a bounded amount of memory.
 */
export const MAX_YAML_ALIASES = 100;

export class YamlTextError extends Error {
  constructor(
    message: string,
    /** 1-based line of the text given to parseYamlText, when the parser knows it. */
    readonly line: number | undefined,
  ) {
    super(message);
    this.name = 'YamlTextError';
  }
}

export function parseYamlText(text: string): unknown {
  try {
    return parse(text, { schema: 'core', version: '1.2', uniqueKeys: true, maxAliasCount: MAX_YAML_ALIASES, prettyErrors: true, logLevel: 'error' });
  } catch (error) {
    if (error instanceof YAMLError) {
      const line = error.linePos?.[0]?.line;
      const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      throw new YamlTextError(message, line);
    }
    // yaml throws a plain Error (or ReferenceError) for an excess of aliases and the like.
    throw new YamlTextError((error as Error).message.split('\n')[0]!, undefined);
  }
}
