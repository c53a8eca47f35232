#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { commandsFor } from './commands/index.js';
import { LockError } from '../lib/file-lock.js';
import { DataError, ExitCode, ExitWith, UsageError } from './errors.js';

/** The one place that turns errors into a message and an exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = new Command('pdsnap')
    .description('Snapshot pipeline and server for the public data API')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  for (const command of await commandsFor(argv)) program.addCommand(command.exitOverride());
  try {
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (error) {
    return exitCodeFor(error);
  }
}

function exitCodeFor(error: unknown): number {
  if (error instanceof ExitWith) return error.code;
  if (error instanceof CommanderError) {
    // --help and --version end through here with exit code 0.
    return error.exitCode === 0 ? ExitCode.ok : ExitCode.error;
  }
  // A lock that another process holds, or that is broken, is the machine's state, not a bug: no "unexpected".
  if (error instanceof UsageError || error instanceof LockError) {
    process.stderr.write(`pdsnap: ${error.message}\n`);
    return ExitCode.error;
  }
  if (error instanceof DataError) {
    process.stderr.write(`pdsnap: ${error.message}\n`);
    return ExitCode.fail;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`pdsnap: unexpected error: ${message}\n`);
  if (process.env.PDSNAP_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return ExitCode.error;
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
