import type { Command } from 'commander';
import { buildCommand } from './build.js';
import { gateCommand } from './gate.js';
import { gcCommand } from './gc.js';
import { inspectCommand } from './inspect.js';
import { keysCommand } from './keys.js';
import { listCommand } from './list.js';
import { rollbackCommand } from './rollback.js';
import { sampleCommand } from './sample.js';
import { serveCommand } from './serve.js';
import { usageCommand } from './usage.js';
import { validateCommand } from './validate.js';

/** Every subcommand, in the order `pdsnap --help` lists them. */
export function commands(): Command[] {
  return [buildCommand(), validateCommand(), gateCommand(), listCommand(), inspectCommand(), rollbackCommand(), gcCommand(), sampleCommand(), serveCommand(), keysCommand(), usageCommand()];
}
