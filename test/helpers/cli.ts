import { execa, type Options, type ResultPromise } from 'execa';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The bundled CLI (`npm test` bundles before vitest runs), so tests exercise what users run. */
export const CLI = path.join(REPO_ROOT, 'dist/bin/pdsnap.js');
/** The same bundle's `main`, without the call that runs it on the process's own arguments. */
const CLI_MAIN = pathToFileURL(path.join(REPO_ROOT, 'dist/bin/cli-main.js')).href;

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The working folder of the command (default: the repository). */
  cwd?: string;
  /** Variables added to the environment for the command, as execa's `env` does. */
  env?: Record<string, string | undefined>;
}

/** How long a command may take in process: one that hangs fails its test instead of the whole run. */
const COMMAND_TIMEOUT_MS = 60_000;

/**
 * Runs `pdsnap <args>` through the bundle's `main`, in this process: what a real process would
 * print and the exit code it would end with, at a tenth of the cost of starting Node and loading
 * the bundle for every command (about 0.4 CPU-s each, most of the suite's time when every command
 * was a process). The environment, the working folder and both output streams are the command's
 * for its duration, so commands run one at a time: a second call waits for the first. Child
 * processes that other test code starts meanwhile see that environment and folder too.
 *
 * What only a process has stays with `runCliProcess`: signals and kills, a reader that goes away,
 * peak memory, a bound on time that holds even against a loop that never yields (fuzzed or hostile
 * input), two commands racing for a lock, and `serve`, which runs until it is signalled (it always
 * goes there).
 */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  if (args[0] === 'serve') return runCliProcess(args, options).then(asCliResult);
  const run = queue.then(() => runHere(args, options));
  queue = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}

let queue: Promise<void> = Promise.resolve();
/** Set when a command outlived its time: it may still run, so no other may start beside it. */
let hung: string | undefined;

async function runHere(args: string[], options: CliOptions): Promise<CliResult> {
  if (hung) throw new Error(`pdsnap ${hung} never finished in this test process, so no other command can run in it`);
  const { main } = (await import(CLI_MAIN)) as typeof import('../../src/cli/main.js');
  const out: string[] = [];
  const err: string[] = [];
  const restore = [
    capture(process.stdout, out),
    capture(process.stderr, err),
    overlayEnv(options.env ?? {}),
    enterFolder(options.cwd ?? REPO_ROOT),
  ];
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      hung = args.join(' ');
      reject(new Error(`pdsnap ${hung} did not finish within ${COMMAND_TIMEOUT_MS / 1000} s`));
    }, COMMAND_TIMEOUT_MS);
  });
  let exitCode: number;
  try {
    exitCode = await Promise.race([main(['node', CLI, ...args]), timedOut]);
  } finally {
    clearTimeout(timer);
    for (const undo of restore.reverse()) undo();
  }
  // execa strips the final newline of each stream; the tests were written against it.
  return { exitCode, stdout: out.join('').replace(/\n$/, ''), stderr: err.join('').replace(/\n$/, '') };
}

/** Collects what the command writes to `stream`, which is then no terminal, like execa's pipes. */
function capture(stream: NodeJS.WriteStream, into: string[]): () => void {
  const write = stream.write;
  const tty = Object.getOwnPropertyDescriptor(stream, 'isTTY');
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    if (done) queueMicrotask(done);
    return true;
  }) as typeof stream.write;
  Object.defineProperty(stream, 'isTTY', { value: false, configurable: true, writable: true });
  return () => {
    stream.write = write;
    if (tty) Object.defineProperty(stream, 'isTTY', tty);
    else delete (stream as { isTTY?: boolean }).isTTY;
  };
}

/** Adds `env` for the command; afterwards the whole environment is as before, whatever the command set. */
function overlayEnv(env: Record<string, string | undefined>): () => void {
  const before = { ...process.env };
  for (const [name, value] of Object.entries(env)) setEnv(name, value);
  return () => {
    for (const name of Object.keys(process.env)) if (!Object.hasOwn(before, name)) delete process.env[name];
    for (const [name, value] of Object.entries(before)) if (process.env[name] !== value) setEnv(name, value);
  };
}

function setEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** process.chdir works in vitest's forks pool (vitest.config.ts), not in worker threads. */
function enterFolder(folder: string): () => void {
  const before = process.cwd();
  if (folder !== before) process.chdir(folder);
  return () => {
    if (process.cwd() !== before) process.chdir(before);
  };
}

function asCliResult(result: { exitCode?: number; stdout: unknown; stderr: unknown }): CliResult {
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Runs `pdsnap <args>` as a real process (Node's own options in `nodeArgs`); never throws on a non-zero exit. */
export function runCliProcess(args: string[], options: Options = {}, nodeArgs: string[] = []) {
  return execa('node', [...nodeArgs, CLI, ...args], { reject: false, cwd: REPO_ROOT, ...options }) as ResultPromise<
    Options & { reject: false }
  >;
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `pdsnap-${prefix}-`));
}

/** The preload that makes a pdsnap process write its peak RSS at exit (compiled with the CLI). */
const PEAK_RSS = pathToFileURL(path.join(REPO_ROOT, 'dist/preload/peak-rss.js')).href;

/** Runs `pdsnap <args>` like runCliProcess and measures the process's peak resident set size, in bytes. */
export async function runCliMeasured(args: string[], options: Options = {}) {
  const file = path.join(await tempDir('peak-rss'), 'bytes');
  const result = await runCliProcess(args, { ...options, env: { ...options.env, PDSNAP_PEAK_RSS_FILE: file } }, ['--import', PEAK_RSS]);
  const peakRssBytes = Number(await readFile(file, 'utf8').catch(() => 'NaN'));
  return { result, peakRssBytes };
}
