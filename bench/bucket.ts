import { execa } from 'execa';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { measureProcess, mib, seconds } from './measure.js';
import { startChild, writeKeysFile } from './server.js';

export interface BucketResult {
  filers: number;
  bundleBytes: number;
  buildMs: number;
  buildIntoBucketMs: number;
  buildIntoBucketRssBytes: number;
  publishMs: number;
  publishRssBytes: number;
  serveReadyMs: number;
  serveRssBytes: number;
  reloadMs: number;
}

/**
 * A full-scale Smart Money bundle through a bucket: `sample --scale`, `build` into a folder, `sync`
 * it to an s3rver process on loopback (every object uploaded, read back and hashed), then `serve`
 * from the bucket: time to ready (download into the cache, verify every digest, open) and peak RSS.
 */
export async function benchBucket(cli: string, repoRoot: string, filers: number): Promise<BucketResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-bench-bucket-'));
  const port = await freePort();
  await mkdir(path.join(dir, 's3'));
  const s3 = execa(
    'node',
    [
      path.join(repoRoot, 'node_modules/s3rver/bin/s3rver.js'),
      '-d',
      path.join(dir, 's3'),
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-s',
      '--configure-bucket',
      'bench',
    ],
    {
      reject: false,
    },
  );
  Object.assign(process.env, {
    AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  });
  const now = new Date();
  try {
    const sources = path.join(dir, 'sources');
    const store = path.join(dir, 'store');
    process.stderr.write(`bucket: generating two quarters of ${filers} filers...\n`);
    const generate = await measureProcess(
      'node',
      [cli, 'sample', '--out', sources, '--now', now.toISOString(), '--scale', String(filers), '--json'],
      repoRoot,
    );
    if (generate.exitCode !== 0) throw new Error(`sample failed: ${generate.stderr}`);
    process.stderr.write('bucket: build into a folder...\n');
    const build = await measureProcess(
      'node',
      [cli, 'build', '--all-filers', '--sources', sources, '--store', store, '--now', now.toISOString(), '--json', '--quiet'],
      repoRoot,
    );
    if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr}`);
    const report = JSON.parse(build.stdout).datasets.find((d: { dataset: string }) => d.dataset === 'smart-money');
    const manifest = JSON.parse(await readFile(path.join(store, 'bundles/smart-money', report.snapshotId, 'manifest.json'), 'utf8'));
    const bundleBytes = [...manifest.files, manifest.servingIndex].reduce((sum: number, f: { bytes: number }) => sum + f.bytes, 0);

    process.stderr.write('bucket: sync to s3://bench/prod...\n');
    const publish = await measureProcess('node', [cli, 'sync', store, 's3://bench/prod', '--now', now.toISOString()], repoRoot);
    if (publish.exitCode !== 0) throw new Error(`sync failed: ${publish.stderr}`);

    process.stderr.write('bucket: serve from the bucket...\n');
    const keysFile = path.join(dir, 'keys.json');
    await writeKeysFile(keysFile, now, 1);
    const started = performance.now();
    const serve = await startChild(
      'node',
      [
        cli,
        'serve',
        '--store',
        's3://bench/prod',
        '--cache',
        path.join(dir, 'cache'),
        '--port',
        '0',
        '--reload-interval',
        '500ms',
        '--keys',
        keysFile,
        '--usage-db',
        path.join(dir, 'usage.sqlite'),
      ],
      repoRoot,
    );
    try {
      await waitFor(serve.base, () => true);
      const serveReadyMs = performance.now() - started;
      // A newer Smart Money bundle built straight into the bucket, then the time the server takes to switch.
      process.stderr.write('bucket: build a newer bundle into the bucket, time the switch...\n');
      const direct = await measureProcess(
        'node',
        [
          cli,
          'build',
          '--all-filers',
          '--datasets',
          'smart-money',
          '--sources',
          sources,
          '--store',
          's3://bench/prod',
          '--now',
          new Date(now.getTime() + 1000).toISOString(),
          '--json',
          '--quiet',
        ],
        repoRoot,
      );
      if (direct.exitCode !== 0) throw new Error(`build into the bucket failed: ${direct.stderr}`);
      const newId = JSON.parse(direct.stdout).datasets[0].snapshotId as string;
      const switchStarted = performance.now();
      await waitFor(serve.base, (body) => body.datasets['smart-money']?.snapshotId === newId);
      const reloadMs = performance.now() - switchStarted;
      const status = await readFile(`/proc/${serve.child.pid}/status`, 'utf8');
      const serveRssBytes = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
      return {
        filers,
        bundleBytes,
        buildMs: build.wallMs,
        buildIntoBucketMs: direct.wallMs,
        buildIntoBucketRssBytes: direct.peakRssBytes,
        publishMs: publish.wallMs,
        publishRssBytes: publish.peakRssBytes,
        serveReadyMs,
        serveRssBytes,
        reloadMs,
      };
    } finally {
      serve.child.kill('SIGTERM');
      await serve.child.catch(() => {});
    }
  } finally {
    s3.kill('SIGTERM');
    await s3.catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}

async function waitFor(base: string, ok: (body: { datasets: Record<string, { snapshotId?: string }> }) => boolean): Promise<void> {
  for (;;) {
    const answer = await fetch(`${base}/readyz`);
    const body = (await answer.json()) as { datasets: Record<string, { snapshotId?: string }> };
    if (answer.status === 200 && ok(body)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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

export function formatBucket(r: BucketResult): string {
  return [
    `Smart Money through a bucket (s3rver on loopback), ${r.filers} filers per quarter, bundle ${mib(r.bundleBytes)}`,
    `  build into a folder          ${seconds(r.buildMs)}`,
    `  sync folder -> s3://         ${seconds(r.publishMs)}, peak RSS ${mib(r.publishRssBytes)}`,
    `  serve from s3:// until ready ${seconds(r.serveReadyMs)} (download, verify, open), peak RSS ${mib(r.serveRssBytes)}`,
    `  build smart-money into s3://  ${seconds(r.buildIntoBucketMs)}, peak RSS ${mib(r.buildIntoBucketRssBytes)}`,
    `  pick-up of a newer bundle    ${seconds(r.reloadMs)} after its build ended (poll 0.5 s, download, verify, swap)`,
  ].join('\n');
}
