import { execa, type ResultPromise } from 'execa';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tempDir } from './cli.js';

/**
 * A real `redis-server` (Debian's package; .ci/run installs it) on a free loopback port, with its
 * files in a temporary folder. It persists to an append-only file there, so `stop()` then `start()`
 * brings the same data back on the same port: a Redis outage and its end, as a deployment sees them.
 */
export interface TestRedis {
  /** redis://127.0.0.1:<port>/0 */
  url: string;
  port: number;
  dir: string;
  /** Stops the server (SIGTERM: it finishes writing its file first) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and folder; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  dispose(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const dir = await tempDir('redis');
  const port = await freePort();
  let child: ResultPromise | null = null;

  const start = async () => {
    const server = execa(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--daemonize',
        'no',
        '--loglevel',
        'warning',
      ],
      { reject: false, stdin: 'ignore' },
    );
    child = server;
    await untilAccepting(port, server);
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running) return;
    running.kill('SIGTERM');
    await running;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    dir,
    stop,
    start,
    async dispose() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A port the kernel just handed out and took back: free unless something grabs it within milliseconds. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls with PING until the server answers PONG; fails if the process exits first. */
async function untilAccepting(port: number, server: ResultPromise): Promise<void> {
  let exited = false;
  void server.then(() => {
    exited = true;
  });
  for (let attempt = 0; attempt < 200; attempt++) {
    if (exited) throw new Error(`redis-server on port ${port} exited: ${String((await server).stdout)}`);
    const ping = await execa('redis-cli', ['-p', String(port), 'ping'], { reject: false });
    if (String(ping.stdout).trim() === 'PONG') return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server on port ${port} did not start accepting connections`);
}
