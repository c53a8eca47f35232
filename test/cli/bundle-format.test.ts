import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

// The committed sample is dated for this instant.
const NOW = '2026-11-22T12:00:00.000Z';

let sources: string;
beforeAll(async () => {
  sources = await tempDir('format-sources');
  await cp(path.join(REPO_ROOT, 'data/sources'), sources, { recursive: true });
});

async function build(store: string, env: Record<string, string> = {}) {
  const result = await runCli(['build', '--datasets', 'smart-money', '--sources', sources, '--store', store, '--now', NOW, '--json'], { env });
  expect(result.exitCode, String(result.stderr)).toBe(0);
  const dataset = JSON.parse(String(result.stdout)).datasets[0];
  const manifest = JSON.parse(await readFile(path.join(store, 'bundles/smart-money', dataset.snapshotId, 'manifest.json'), 'utf8'));
  return { dataset, manifest };
}

describe('bundles of NDJSON parts', () => {
  it('splits a resource into many parts at a small part size, deterministically, and every reader follows them', async () => {
    const small = await tempDir('format-small');
    const { dataset, manifest } = await build(small, { PDSNAP_PART_BYTES: '4096' });
    const tradeParts = manifest.files.filter((f: { path: string }) => f.path.startsWith('trades/'));
    expect(tradeParts.length).toBeGreaterThan(3);
    expect(tradeParts.map((f: { path: string }) => f.path)).toEqual(tradeParts.map((_: unknown, i: number) => `trades/${String(i).padStart(5, '0')}.ndjson`));
    for (const part of tradeParts.slice(0, -1)) expect(part.bytes).toBeLessThanOrEqual(4096 + 2048);

    // The same records as with the default part size, and the same bundle again when rebuilt.
    const { dataset: whole } = await build(await tempDir('format-whole'));
    expect(dataset.records).toEqual(whole.records);
    const again = await build(await tempDir('format-again'), { PDSNAP_PART_BYTES: '4096' });
    expect(again.dataset.snapshotId).toBe(dataset.snapshotId);

    const validate = await runCli(['validate', '--datasets', 'smart-money', '--store', small, '--now', NOW, '--json']);
    expect(validate.exitCode, String(validate.stdout)).toBe(0);
    const inspect = await runCli(['inspect', dataset.snapshotId, '--store', small, '--json']);
    expect(inspect.exitCode).toBe(0);
    expect(JSON.parse(String(inspect.stdout))).toMatchObject({ verified: true });
  });

  it('refuses a bundle of the older format with a message that says to rebuild', async () => {
    const store = await tempDir('format-old');
    const { dataset } = await build(store);
    const file = path.join(store, 'bundles/smart-money', dataset.snapshotId, 'manifest.json');
    const manifest = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...manifest, format: 1 }));
    const validate = await runCli(['validate', '--store', store, '--now', NOW, '--json']);
    expect(validate.exitCode).toBe(2);
    const smartMoney = JSON.parse(String(validate.stdout)).datasets.find((d: { dataset: string }) => d.dataset === 'smart-money');
    expect(smartMoney.rules[0].message).toContain('bundle format 1 is not read by this pdsnap (it reads format 2): rebuild it with pdsnap build');
    const inspect = await runCli(['inspect', dataset.snapshotId, '--store', store]);
    expect(inspect.exitCode).toBe(2);
  });
});
