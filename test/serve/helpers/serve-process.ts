import { execa, type ResultPromise } from 'execa';
import { CLI } from '../../helpers/cli.js';

export interface ServeProcess {
  base: string;
  /** Everything the process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | undefined>;
}

/** Starts `pdsnap serve <args>` as a real process and resolves with its base URL once it listens. */
export async function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child: ResultPromise = execa('node', [CLI, 'serve', '--port', '0', ...args], { reject: false, env, extendEnv: true });
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
  };
}
