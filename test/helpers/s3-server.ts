import { execa, type ResultPromise } from 'execa';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { REPO_ROOT, tempDir } from './cli.js';

/**
 * A real S3 server (s3rver, from npm) as its own process on a free loopback port, its objects in a
 * temp folder (`<dir>/<bucket>/<key>._S3rver_object`, which a test may damage). It accepts
 * conditional writes and ignores them, as some S3-compatible servers do.
 */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  dir: string;
  /** What a pdsnap process needs to reach it: endpoint, region and s3rver's fixed test credentials. */
  env: Record<string, string>;
  /** The file that holds an object's bytes. */
  objectFile(key: string): string;
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

const S3RVER = path.join(REPO_ROOT, 'node_modules/s3rver/bin/s3rver.js');

export async function startS3(bucket = 'snapshots'): Promise<TestS3> {
  const dir = await tempDir('s3rver');
  const port = await freePort();
  let child: ResultPromise | null = null;
  const start = async () => {
    const server = execa('node', [S3RVER, '-d', dir, '-a', '127.0.0.1', '-p', String(port), '--configure-bucket', bucket], {
      reject: false,
      stdin: 'ignore',
    });
    child = server;
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      server.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('listening')) resolve();
      });
      void server.then(() => reject(new Error(`s3rver exited: ${seen}${String(server.stderr ?? '')}`)));
    });
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running) return;
    running.kill('SIGTERM');
    await running;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    dir,
    env: { AWS_ENDPOINT_URL: endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
    objectFile: (key) => path.join(dir, bucket, `${key}._S3rver_object`),
    stop,
    start,
    async dispose() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

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
