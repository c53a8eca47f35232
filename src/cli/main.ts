import { Command, CommanderError } from 'commander';
import { commandsFor } from './commands/index.js';
import { LockError } from '../lib/file-lock.js';
import { isBucketError, StoreUnavailableError } from '../publish/store-errors.js';
import { DataError, ExitCode, ExitWith, UsageError } from './errors.js';
import { printError, printJson } from './output.js';
import { guardOutputStreams } from './stdout-guard.js';
import { packageVersion } from './package-version.js';
import { isVerbose, setVerbosity } from './verbosity.js';

/** The one place that turns errors into a message and an exit code. */
export async function main(argv: string[]): Promise<number> {
  // A stack under PDSNAP_DEBUG names the TypeScript source, not the bundle (subcommands load after this).
  if (process.env.PDSNAP_DEBUG) process.setSourceMapsEnabled(true);
  guardOutputStreams();
  argv = helpForSubcommand(argv);
  setVerbosity(argv);
  const json = wantsJson(argv);
  const program = new Command('pdsnap')
    .description('Snapshot pipeline and server for the public data API')
    .version(packageVersion(), '-V, --version', 'print the version of pdsnap')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(pdsnap --help lists the commands)');
  for (const command of await commandsFor(argv)) {
    // Subcommands take over exitOverride, output and the hint after an error from the program.
    command.copyInheritedSettings(program);
    command.showHelpAfterError(`(pdsnap ${command.name()} --help lists its options)`);
    program.addCommand(command);
  }
  try {
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (error) {
    const { code, kind, message } = outcomeOf(error);
    if (json && kind !== null) printJson({ ok: false, error: { kind, exitCode: code, message } });
    return code;
  }
}

/** `pdsnap help keys create` is `pdsnap keys create --help`: commander's help command takes one name only. */
function helpForSubcommand(argv: string[]): string[] {
  const [node, script, first, ...rest] = argv;
  if (first !== 'help' || rest.length < 2) return argv;
  return [node!, script!, ...rest, '--help'];
}

/** --json anywhere before `--`: then every outcome, errors included, is one JSON object on stdout. */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

interface Outcome {
  code: number;
  /** null: the command ended on purpose (help, version, its own report already printed). */
  kind: 'usage' | 'data' | 'unexpected' | null;
  message: string;
}

function outcomeOf(error: unknown): Outcome {
  if (error instanceof ExitWith) return { code: error.code, kind: null, message: '' };
  if (error instanceof CommanderError) {
    // --help and --version end through here with exit code 0; commander has printed its message.
    if (error.exitCode === 0) return { code: ExitCode.ok, kind: null, message: '' };
    return { code: ExitCode.error, kind: 'usage', message: error.message.replace(/^error: /, '') };
  }
  // A lock that another process holds, or that is broken, is the machine's state, not a bug: no
  // "unexpected"; nor is a bucket that refuses or cannot be reached (named: the AWS SDK stays unloaded).
  if (error instanceof UsageError || error instanceof LockError || error instanceof StoreUnavailableError || isBucketError(error)) {
    printError(error.message);
    return { code: ExitCode.error, kind: 'usage', message: error.message };
  }
  if (error instanceof DataError) {
    printError(error.message);
    return { code: ExitCode.fail, kind: 'data', message: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  printError(`unexpected error: ${message}`);
  if ((process.env.PDSNAP_DEBUG || isVerbose()) && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return { code: ExitCode.error, kind: 'unexpected', message };
}
