import type { Command } from 'commander';

/**
 * Every subcommand, in the order `pdsnap --help` lists them, each loaded only when asked for:
 * `pdsnap list` need not load the HTTP server, the Markdown renderer or the XML parser.
 */
export const COMMANDS: Record<string, () => Promise<Command>> = {
  fetch: async () => (await import('./fetch.js')).fetchCommand(),
  build: async () => (await import('./build.js')).buildCommand(),
  validate: async () => (await import('./validate.js')).validateCommand(),
  gate: async () => (await import('./gate.js')).gateCommand(),
  list: async () => (await import('./list.js')).listCommand(),
  inspect: async () => (await import('./inspect.js')).inspectCommand(),
  promote: async () => (await import('./promote.js')).promoteCommand(),
  rollback: async () => (await import('./rollback.js')).rollbackCommand(),
  diff: async () => (await import('./diff.js')).diffCommand(),
  history: async () => (await import('./history.js')).historyCommand(),
  gc: async () => (await import('./gc.js')).gcCommand(),
  sync: async () => (await import('./sync.js')).syncCommand(),
  sample: async () => (await import('./sample.js')).sampleCommand(),
  serve: async () => (await import('./serve.js')).serveCommand(),
  keys: async () => (await import('./keys.js')).keysCommand(),
  usage: async () => (await import('./usage.js')).usageCommand(),
};

/** Program options that end the run before any subcommand: loading all fifteen would cost about a second of CPU. */
const PROGRAM_ONLY = new Set(['-V', '--version']);

/** The command named on the command line, none for --version, or all of them (for --help and for unknown names). */
export async function commandsFor(argv: string[]): Promise<Command[]> {
  const name = argv[2];
  if (name !== undefined && PROGRAM_ONLY.has(name)) return [];
  const load = name !== undefined && Object.hasOwn(COMMANDS, name) ? [COMMANDS[name]!] : Object.values(COMMANDS);
  return Promise.all(load.map((factory) => factory()));
}
