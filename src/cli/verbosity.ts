import type { Command } from 'commander';
import { escapeControlLines } from '../lib/terminal-text.js';
import { writeTo } from './stdout-guard.js';

/**
 * --quiet and --verbose, accepted by every command with one meaning each (docs/spec.md, Command line):
 * --quiet drops progress and informational messages on stderr (and shortens reports where the
 * command says so); --verbose lists in full what a report abridges, and prints the stack of an
 * unexpected error. They are read from the command line once, in main.
 */
let level: 'quiet' | 'normal' | 'verbose' = 'normal';

export function setVerbosity(argv: string[]): void {
  const end = argv.indexOf('--');
  const args = end === -1 ? argv : argv.slice(0, end);
  level = args.includes('--quiet') || args.includes('-q') ? 'quiet' : args.includes('--verbose') ? 'verbose' : 'normal';
}

export function isQuiet(): boolean {
  return level === 'quiet';
}

export function isVerbose(): boolean {
  return level === 'verbose';
}

/** An informational message on stderr (not an error, not a result): dropped under --quiet. */
export function printNotice(message: string): void {
  if (level !== 'quiet') writeTo(process.stderr, `${escapeControlLines(message)}\n`);
}

/** Declares the two options on a command that does not declare them itself. */
export function withVerbosityOptions(command: Command): Command {
  return command
    .option('--quiet', 'no progress or informational messages on stderr')
    .option('--verbose', 'list everything in full; the stack of an unexpected error');
}
