import { execa, type ResultPromise } from 'execa';
import { CLI, REPO_ROOT } from '../../helpers/cli.js';

export interface ServeProcess {
  base: string;
  /** Everything the process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | undefined>;
  /** Sends a signal and resolves with the finished process. */
  signal(name: NodeJS.Signals): Promise<{ exitCode?: number; signal?: string }>;
}

/**
 * Starts `pdsnap serve <args>` as a real process and resolves with its base URL once it listens and
 * has loaded its snapshots. No drain delay unless the test asks for one, so that stop() is quick.
 */
export async function startServe(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ServeProcess> {
  const drain = args.includes('--drain-delay') ? [] : ['--drain-delay', '0s'];
  const child: ResultPromise = execa('node', [...nodeArgs, CLI, 'serve', '--port', '0', ...drain, ...args], {
    reject: false,
    // The repository, whatever folder an in-process CLI command has entered meanwhile (test/helpers/cli.ts).
    cwd: REPO_ROOT,
    env,
    extendEnv: true,
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const base = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (match?.[1]) resolve(match[1]);
    });
    void child.then(() => reject(new Error(`serve exited early: ${err}`)));
  });
  return {
    base,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      child.kill('SIGTERM');
      return (await child).exitCode;
    },
    async signal(name) {
      child.kill(name);
      const result = await child;
      return {
        ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
        ...(result.signal ? { signal: result.signal } : {}),
      };
    },
  };
}
