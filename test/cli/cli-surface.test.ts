import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

/** What every command owes a script: one answer, a config file never skipped, store damage as data. */

const NOW = '2026-11-22T12:00:00.000Z';
let store: string;

/** The committed sample's articles, built in the test's process at NOW. */
const buildSampleArticles = (into: string) =>
  runCli(['build', '--datasets', 'articles', '--sources', path.join(REPO_ROOT, 'data/sources'), '--store', into, '--now', NOW]);

let work: string;

beforeAll(async () => {
  work = await tempDir('cli-surface');
  store = path.join(work, 'store');
  const build = await buildSampleArticles(store);
  expect(build.exitCode, build.stderr).toBe(0);
  await mkdir(path.join(work, 'cfg'), { recursive: true });
  await writeFile(path.join(work, 'cfg/dup.yaml'), 'limits:\n  articles:\n    maxGenerationAgeDays: 3\n    maxGenerationAgeDays: 2\n');
  await writeFile(path.join(work, 'cfg/dup.json'), '{"limits": {"articles": {"maxGenerationAgeDays": 3,\n "maxGenerationAgeDays": 2}}}');
});

describe('the command line', () => {
  it('refuses --json together with --format markdown instead of picking one', async () => {
    const result = await runCli(['validate', '--store', store, '--now', NOW, '--json', '--format', 'markdown']);
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(result.stdout).error.message).toBe('--json and --format markdown cannot go together: choose one');
  });

  it('refuses a duration no date can add, naming the option', async () => {
    const result = await runCli(['gate', '--store', store, '--now', NOW, '--min-remaining', '300000000d']);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('--min-remaining: "300000000d" is longer than the 36500d (100 years) a duration may be');
  });

  it('names the line and the key of a key written twice in a config file, YAML or JSON', async () => {
    const yaml = await runCli(['list', '--store', store, '--config', path.join(work, 'cfg/dup.yaml')]);
    expect(yaml.exitCode).toBe(3);
    expect(yaml.stderr).toContain('does not parse at line 4 ("maxGenerationAgeDays: 2"): Map keys must be unique');
    const json = await runCli(['list', '--store', store, '--config', path.join(work, 'cfg/dup.json')]);
    expect(json.exitCode).toBe(3);
    expect(json.stderr).toMatch(/does not parse at line 2 .*duplicate key "maxGenerationAgeDays"/);
  });

  it('checks the config file in sync and sample too', async () => {
    for (const args of [
      ['sync', store, path.join(work, 'synced')],
      ['sample', '--out', path.join(work, 'sample')],
    ]) {
      const result = await runCli([...args, '--config', path.join(work, 'cfg/dup.yaml')]);
      expect(result.exitCode, args[0]).toBe(3);
      expect(result.stderr, args[0]).toContain('Map keys must be unique');
    }
  });

  it('reports a broken current pointer as store damage: diff exits 2, history marks it BROKEN', async () => {
    const damaged = path.join(work, 'damaged');
    await buildSampleArticles(damaged);
    await writeFile(path.join(damaged, 'current/articles.json'), '');
    const result = await runCli(['diff', 'articles', '--store', damaged]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('is not a valid current pointer (empty)');
    expect(result.stderr).not.toContain('unexpected error');
    const history = await runCli(['history', 'articles', '--store', damaged, '--now', NOW]);
    expect(history.stdout).toMatch(/^articles: BROKEN current pointer: .*is not a valid current pointer \(empty\)/);
    const json = await runCli(['history', 'articles', '--store', damaged, '--now', NOW, '--json']);
    expect(JSON.parse(json.stdout).pointer).toMatchObject({ state: 'broken' });
  });

  it('says which day does not exist in a --now, instead of blaming its format', async () => {
    for (const [now, day] of [
      ['2026-02-30', '2026-02-30'],
      ['2026-13-01T00:00:00Z', '2026-13-01'],
    ]) {
      const result = await runCli(['validate', '--store', store, '--now', now!]);
      expect(result.exitCode, now).toBe(3);
      expect(result.stderr, now).toContain(`--now: "${now}": ${day} is not a day of the calendar`);
    }
  });
});
