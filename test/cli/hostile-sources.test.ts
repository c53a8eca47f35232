import { cp, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

// The committed sample was generated for this instant; building at it keeps every article fresh.
const NOW = '2026-11-22T12:00:00.000Z';

interface Rejection {
  source: string;
  location: string;
  reason: string;
}

async function copySample(): Promise<string> {
  const sources = await tempDir('hostile-sources');
  await cp(path.join(REPO_ROOT, 'data/sources'), sources, { recursive: true });
  return sources;
}

const recordCount = (records: Record<string, number>) => Object.values(records).reduce((a, b) => a + b, 0);

async function buildArticles(sources: string) {
  const store = await tempDir('hostile-store');
  const result = await runCli(['build', '--datasets', 'articles', '--sources', sources, '--store', store, '--now', NOW, '--json']);
  const report = JSON.parse(String(result.stdout));
  return { result, dataset: report.datasets[0] as { outcome: string; records: Record<string, number>; rejected: Rejection[] } };
}

describe('pdsnap build with a config whose limit is beyond any date', () => {
  it('refuses maxGenerationAgeDays: 9007199254740991 at load, naming the field and the allowed range (exit 3)', async () => {
    const dir = await tempDir('hostile-config');
    const config = path.join(dir, 'pdsnap.config.yaml');
    await writeFile(config, 'freshness:\n  articles:\n    maxGenerationAgeDays: 9007199254740991\n');
    const result = await runCli([
      'build',
      '--datasets',
      'articles',
      '--sources',
      path.join(REPO_ROOT, 'data/sources'),
      '--store',
      path.join(dir, 'store'),
      '--now',
      NOW,
      '--config',
      config,
    ]);
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toContain(
      'is invalid at freshness.articles.maxGenerationAgeDays: must be a whole number of days from 1 to 3650',
    );
    expect(String(result.stderr)).not.toContain('Invalid time value');
  });
});

describe('pdsnap build on a Markdown article whose front matter is JavaScript', () => {
  let baseline: number;
  beforeAll(async () => {
    const { dataset } = await buildArticles(await copySample());
    baseline = recordCount(dataset.records);
    expect(baseline).toBeGreaterThan(10);
  });

  it('runs none of it, rejects each such file at line 1 and publishes every other article', async () => {
    const sources = await copySample();
    const witness = path.join(sources, 'owned.txt');
    const fences = {
      'fence-js.md': '---js',
      'fence-javascript.md': '---javascript',
      'fence-upper.md': '---JS',
      'fence-spaced.md': '--- javascript',
    };
    for (const [name, fence] of Object.entries(fences)) {
      const code = `require('fs').writeFileSync(${JSON.stringify(witness)}, 'ran'); ({ title: 'x', date: '2026-11-21', source: 'x' })`;
      await writeFile(path.join(sources, 'articles', name), `${fence}\n${code}\n---\n\nBody.\n`);
    }
    const { result, dataset } = await buildArticles(sources);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(await readdir(sources)).not.toContain('owned.txt');
    expect(dataset.outcome).toBe('published');
    expect(recordCount(dataset.records)).toBe(baseline);
    const planted = dataset.rejected.filter((r) => r.source.startsWith('articles/fence-'));
    expect(planted.sort((a, b) => (a.source < b.source ? -1 : 1))).toEqual(
      Object.keys(fences)
        .sort()
        .map((name) => ({ source: `articles/${name}`, location: 'front matter, line 1', reason: 'front matter must be YAML' })),
    );
  });
});
