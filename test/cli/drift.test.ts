import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

/**
 * Drift on the real CLI: the partial source tree of the issue (two thirds of the 13F filer folders
 * gone, every Markdown article gone), the manual flow (--no-promote, diff, promote), and rebuilds
 * that must pass (the same sources an hour later, a new 13F quarter, one article added, removed
 * and retitled).
 */

const NOW = '2026-11-22T12:00:00.000Z';
const HOUR_LATER = '2026-11-22T13:00:00.000Z';
const SAMPLE = path.join(REPO_ROOT, 'data/sources');

async function pointer(store: string, dataset: string): Promise<string> {
  return (JSON.parse(await readFile(path.join(store, 'current', `${dataset}.json`), 'utf8')) as { snapshotId: string }).snapshotId;
}

/** The committed sample with two thirds of the EDGAR filer folders and every Markdown article removed. */
async function partialTree(dir: string): Promise<string> {
  const sources = path.join(dir, 'partial');
  await cp(SAMPLE, sources, { recursive: true });
  const filers = (await readdir(path.join(sources, 'filings/edgar'))).sort();
  for (const [i, filer] of filers.entries()) if (i % 3 !== 0) await rm(path.join(sources, 'filings/edgar', filer), { recursive: true });
  for (const locale of ['en-US', 'ja-JP', 'ko-KR', 'zh-CN']) {
    for (const file of await readdir(path.join(sources, 'articles', locale)))
      if (file.endsWith('.md')) await rm(path.join(sources, 'articles', locale, file));
  }
  return sources;
}

/**
 * The machine's clock is injected (PDSNAP_CLOCK) as the build's --now: a later quarter is built
 * "then", not refused as a future --now; --allow-future-now, since the store is the test's own, so
 * that a rehearsed date after the host's clock is accepted whatever day the tests run.
 */
async function build(store: string, sources: string, now: string, ...extra: string[]) {
  return runCli(['build', '--sources', sources, '--store', store, '--now', now, '--quiet', '--allow-future-now', ...extra], {
    env: { PDSNAP_CLOCK: now },
  });
}

function report(stdout: unknown) {
  return JSON.parse(String(stdout)) as {
    datasets: Array<{
      dataset: string;
      outcome: string;
      madeCurrent: boolean;
      candidate: boolean;
      snapshotId: string | null;
      reason: string | null;
      drift: Array<{ rule: string; status: string; message: string }>;
    }>;
  };
}

/**
 * One build of every dataset from the sample at NOW: each test that starts from it gets a copy in a
 * store of its own (a build of the same sources and --now is byte-identical), instead of building it.
 */
let firstStore: string;
beforeAll(async () => {
  firstStore = path.join(await tempDir('drift-first'), 'store');
  const first = await build(firstStore, SAMPLE, NOW, '--json');
  expect(first.exitCode).toBe(0);
  // The first build of each dataset passes drift with a note.
  for (const d of report(first.stdout).datasets) {
    expect(d.drift).toEqual([
      expect.objectContaining({ rule: 'drift.baseline', status: 'pass', message: expect.stringContaining('first snapshot') }),
    ]);
  }
});

/** A copy of the first build, as `store` under dir. */
async function firstBuilt(dir: string): Promise<string> {
  const store = path.join(dir, 'store');
  await cp(firstStore, store, { recursive: true });
  return store;
}

describe('drift: a partial source tree', () => {
  let dir: string;
  let store: string;
  let partial: string;
  let before: Record<string, string>;

  beforeAll(async () => {
    dir = await tempDir('drift-partial');
    store = await firstBuilt(dir);
    partial = await partialTree(dir);
    before = { articles: await pointer(store, 'articles'), 'smart-money': await pointer(store, 'smart-money') };
  });

  it('fails the build (exit 2), keeps current, and names the investors and articles that would be lost', async () => {
    const result = await build(store, partial, HOUR_LATER, '--json');
    expect(result.exitCode).toBe(2);
    const datasets = report(result.stdout).datasets;
    const smartMoney = datasets.find((d) => d.dataset === 'smart-money')!;
    const articles = datasets.find((d) => d.dataset === 'articles')!;
    expect(smartMoney).toMatchObject({ outcome: 'failed', madeCurrent: false, snapshotId: null });
    expect(smartMoney.reason).toContain(`drift against current ${before['smart-money']}`);
    const failing = smartMoney.drift.filter((r) => r.status === 'fail').map((r) => r.rule);
    expect(failing).toEqual(expect.arrayContaining(['drift.investors.shrink', 'drift.investors.lost-keys', 'drift.trades.shrink']));
    const shrink = smartMoney.drift.find((r) => r.rule === 'drift.investors.shrink')!;
    expect(shrink.message).toBe('investors: 25 -> 8 records (-68.0%)');
    expect(smartMoney.drift.find((r) => r.rule === 'drift.smart-money.investors-gone')!.message).toMatch(
      /investors no longer published: [A-Z].*\(.*, last filing 2026-09-30 filed 2026-1\d-\d\d\)/,
    );
    expect(articles.outcome).toBe('failed');
    const lostArticles = articles.drift.find((r) => r.rule === 'drift.articles.lost-keys')!;
    expect(lostArticles).toMatchObject({ status: 'fail' });
    expect(lostArticles.message).toContain('12 of 19 keys lost');
    expect(lostArticles.message).toContain('en-US/fed-holds-rates-signals-patience');
    expect(await pointer(store, 'articles')).toBe(before.articles);
    expect(await pointer(store, 'smart-money')).toBe(before['smart-money']);

    // The readable report says the same.
    const text = await build(store, partial, HOUR_LATER, '--datasets', 'smart-money');
    expect(text.exitCode).toBe(2);
    expect(String(text.stdout)).toContain('FAIL  drift.investors.lost-keys: investors: 17 of 25 keys lost (68.0%), e.g. ');
  });

  it('fails it the same against a store restored without its pointers, or with one that dangles, comparing with the newest bundle', async () => {
    const restored = path.join(await tempDir('drift-restored'), 'store');
    await cp(firstStore, restored, { recursive: true });
    await rm(path.join(restored, 'current'), { recursive: true });
    const result = await build(restored, partial, HOUR_LATER, '--datasets', 'smart-money', '--json');
    expect(result.exitCode).toBe(2);
    const smartMoney = report(result.stdout).datasets[0]!;
    expect(smartMoney).toMatchObject({ outcome: 'failed', madeCurrent: false });
    expect(smartMoney.drift[0]).toEqual(
      expect.objectContaining({
        rule: 'drift.baseline',
        status: 'warn',
        message: `current/smart-money.json is missing although the store holds published bundles of smart-money; compared with ${before['smart-money']} instead`,
      }),
    );
    expect(smartMoney.drift.find((r) => r.rule === 'drift.investors.shrink')).toMatchObject({ status: 'fail' });
    await expect(readdir(path.join(restored, 'current'))).rejects.toThrow(/ENOENT/);

    // A pointer to a bundle that is not there (a copy taken while a build published).
    await cp(path.join(firstStore, 'current'), path.join(restored, 'current'), { recursive: true });
    await writeFile(
      path.join(restored, 'current/smart-money.json'),
      (await readFile(path.join(firstStore, 'current/smart-money.json'), 'utf8')).replace(
        before['smart-money']!,
        'smart-money-20261122T115900Z-000000000000',
      ),
    );
    const dangling = report((await build(restored, partial, HOUR_LATER, '--datasets', 'smart-money', '--json')).stdout).datasets[0]!;
    expect(dangling.outcome).toBe('failed');
    expect(dangling.drift[0]).toMatchObject({
      rule: 'drift.baseline',
      status: 'warn',
      message: expect.stringMatching(/cannot be used.*compared with smart-money-20261122T120000Z/),
    });
  });

  it('publishes with --accept-drift, and inspect shows who accepted what', async () => {
    const result = await build(
      store,
      partial,
      HOUR_LATER,
      '--datasets',
      'smart-money',
      '--accept-drift',
      'partner moved the filings folder; accepted by ops',
      '--json',
    );
    expect(result.exitCode).toBe(0);
    const published = report(result.stdout).datasets[0]!;
    expect(published).toMatchObject({ outcome: 'published', madeCurrent: true });
    expect(await pointer(store, 'smart-money')).toBe(published.snapshotId);
    // Three readers of the store, side by side.
    const [inspect, text, gate] = await Promise.all([
      runCli(['inspect', published.snapshotId!, '--store', store, '--json']),
      runCli(['inspect', published.snapshotId!, '--store', store]),
      runCli(['gate', '--store', store, '--now', HOUR_LATER, '--datasets', 'smart-money', '--json']),
    ]);
    expect(inspect.exitCode).toBe(0);
    const shown = JSON.parse(String(inspect.stdout));
    expect(shown.manifest.acceptedDrift).toMatchObject({
      reason: 'partner moved the filings folder; accepted by ops',
      by: 'build',
      baseline: before['smart-money'],
    });
    expect(shown.manifest.acceptedDrift.checks.map((c: { rule: string }) => c.rule)).toContain('drift.investors.shrink');
    expect(String(text.stdout)).toContain('drift        accepted by build at 2026-11-22T13:00:00.000Z');

    // validate and gate then judge drift against the snapshot before, and see the acceptance.
    const rules = JSON.parse(String(gate.stdout)).datasets[0].rules as Array<{ rule: string; status: string; message: string }>;
    expect(rules.find((r) => r.rule === 'drift.investors.shrink')).toMatchObject({
      status: 'pass',
      message: expect.stringContaining('accepted by build'),
    });
  });
});

describe('drift: candidates, diff and promote', () => {
  it('walks the manual flow: build --no-promote, list, diff, promote refused, promote --accept-drift', async () => {
    const dir = await tempDir('drift-manual');
    const store = await firstBuilt(dir);
    const partial = await partialTree(dir);
    const current = await pointer(store, 'smart-money');

    const candidateBuild = await build(store, partial, HOUR_LATER, '--datasets', 'smart-money', '--no-promote', '--json');
    expect(candidateBuild.exitCode).toBe(0);
    const candidate = report(candidateBuild.stdout).datasets[0]!;
    expect(candidate).toMatchObject({ outcome: 'published', madeCurrent: false, candidate: true });
    expect(candidate.reason).toContain('promoting it would fail drift');
    expect(await pointer(store, 'smart-money')).toBe(current);

    // Three readers of the store, side by side.
    const [listJson, listText, diff] = await Promise.all([
      runCli(['list', '--store', store, '--json']),
      runCli(['list', '--store', store]),
      runCli(['diff', 'smart-money', 'current', candidate.snapshotId!, '--store', store, '--limit', '2', '--json']),
    ]);
    const list = JSON.parse(String(listJson.stdout));
    expect(list.snapshots).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ snapshotId: candidate.snapshotId, candidate: true, current: false }),
        expect.objectContaining({ snapshotId: current, candidate: false, current: true }),
      ]),
    );
    expect(String(listText.stdout)).toMatch(new RegExp(`^c\\s+smart-money\\s+${candidate.snapshotId}`, 'm'));

    expect(diff.exitCode).toBe(0);
    const investors = JSON.parse(String(diff.stdout)).resources.find((r: { resource: string }) => r.resource === 'investors');
    expect(investors).toMatchObject({ before: 25, after: 8, added: 0, removed: 17, changed: 0, unchanged: 8 });
    expect(investors.removedKeys).toHaveLength(2);

    const refused = await runCli(['promote', 'smart-money', candidate.snapshotId!, '--store', store, '--now', HOUR_LATER]);
    expect(refused.exitCode).toBe(2);
    expect(String(refused.stdout)).toContain('NOT promoted, current unchanged');
    expect(await pointer(store, 'smart-money')).toBe(current);

    const promoted = await runCli([
      'promote',
      'smart-money',
      candidate.snapshotId!,
      '--store',
      store,
      '--now',
      HOUR_LATER,
      '--accept-drift',
      'half the filers, on purpose',
      '--json',
    ]);
    expect(promoted.exitCode).toBe(0);
    expect(JSON.parse(String(promoted.stdout))).toMatchObject({
      promoted: true,
      previousSnapshotId: current,
      acceptedDrift: { by: 'promote', reason: 'half the filers, on purpose' },
    });
    expect(await pointer(store, 'smart-money')).toBe(candidate.snapshotId);
    // The snapshot that was current before is older now: promote refuses to go back, rollback's job.
    const back = await runCli(['promote', 'smart-money', current, '--store', store, '--now', HOUR_LATER, '--json']);
    expect(back.exitCode).toBe(2);
    expect(JSON.parse(String(back.stdout))).toMatchObject({ promoted: false, previousSnapshotId: candidate.snapshotId });
    expect(JSON.parse(String(back.stdout)).reason).toContain(
      `generated ${NOW}, before current ${candidate.snapshotId} (${HOUR_LATER}): promote never moves current back; pdsnap rollback smart-money ${current} does`,
    );
    expect(await pointer(store, 'smart-money')).toBe(candidate.snapshotId);
    const inspect = JSON.parse(String((await runCli(['inspect', candidate.snapshotId!, '--store', store, '--json'])).stdout));
    expect(inspect.acceptedDrift).toMatchObject({ by: 'promote', baseline: current });

    const history = await runCli(['history', 'smart-money', '--store', store, '--now', HOUR_LATER, '--json']);
    const rows = JSON.parse(String(history.stdout)).snapshots;
    expect(rows.map((r: { snapshotId: string }) => r.snapshotId)).toEqual([current, candidate.snapshotId]);
    expect(rows[1]).toMatchObject({
      current: true,
      records: { investors: 8, consensus: 60 },
      driftAgainst: current,
      acceptedDrift: { reason: 'half the filers, on purpose' },
    });
  });
});

/** A copy of the committed sample under dir, as `name`. */
async function sampleCopy(dir: string, name: string): Promise<string> {
  const sources = path.join(dir, name);
  await cp(SAMPLE, sources, { recursive: true });
  return sources;
}

/** The filer folders of the sample's EDGAR tree, sorted, and each filer's newest filing folder. */
async function filers(sources: string): Promise<Array<{ folder: string; newest: string }>> {
  const edgar = path.join(sources, 'filings/edgar');
  const out: Array<{ folder: string; newest: string }> = [];
  for (const filer of (await readdir(edgar)).sort()) {
    const filings = (await readdir(path.join(edgar, filer))).sort();
    out.push({ folder: path.join(edgar, filer), newest: path.join(edgar, filer, filings.at(-1)!) });
  }
  return out;
}

function failing(d: { drift: Array<{ rule: string; status: string }> }): string[] {
  return d.drift.filter((r) => r.status === 'fail').map((r) => r.rule);
}

/**
 * An articles rebuild from `sources` an hour later that drift fails on `rule` alone, saying
 * `message`, though the count only warns; the current snapshot stays.
 */
async function expectArticlesFailOn(store: string, sources: string, rule: string, message: string): Promise<void> {
  const current = await pointer(store, 'articles');
  const result = await build(store, sources, HOUR_LATER, '--datasets', 'articles', '--json');
  expect(result.exitCode).toBe(2);
  const d = report(result.stdout).datasets[0]!;
  expect(d).toMatchObject({ outcome: 'failed', madeCurrent: false });
  expect(d.drift.find((r) => r.rule === 'drift.articles.shrink')).toMatchObject({ status: 'warn' });
  expect(failing(d)).toEqual([rule]);
  expect(d.drift.find((r) => r.rule === rule)!.message).toBe(message);
  expect(await pointer(store, 'articles')).toBe(current);
}

/**
 * Upstream's bad day that the counts do not see: every record count stays within its thresholds,
 * so before these checks each of these builds made its broken snapshot current with exit 0.
 */
describe("drift: upstream's bad day behind steady counts", () => {
  it('fails when the newest filing of some filers is missing (a data set of the newest quarter missing, older or cut in half)', async () => {
    const dir = await tempDir('drift-older-filings');
    const store = await firstBuilt(dir);
    const current = await pointer(store, 'smart-money');
    const sources = await sampleCopy(dir, 'no-newest');
    // One filer in eight loses its newest filing: the investors are still published, from the quarter before.
    for (const [i, filer] of (await filers(sources)).entries()) if (i % 8 === 0) await rm(filer.newest, { recursive: true });

    const result = await build(store, sources, HOUR_LATER, '--datasets', 'smart-money', '--json');
    expect(result.exitCode).toBe(2);
    const d = report(result.stdout).datasets[0]!;
    expect(d).toMatchObject({ outcome: 'failed', madeCurrent: false });
    expect(failing(d)).toEqual(['drift.smart-money.older-filings']);
    expect(d.drift.find((r) => r.rule === 'drift.smart-money.older-filings')!.message).toMatch(
      /^4 of 25 investors from an older quarter \(16\.0%\): their newest filing is missing from the sources .*, e\.g\. .* \(.*, 2026-09-30 -> 2026-06-30\)/,
    );
    // The counts alone said nothing: the same investors, trades within their thresholds.
    expect(d.drift.filter((r) => r.rule.endsWith('.shrink') || r.rule.endsWith('.lost-keys')).every((r) => r.status === 'pass')).toBe(true);
    expect(await pointer(store, 'smart-money')).toBe(current);
  });

  it('fails when information tables are cut short: the same filing with fewer positions', async () => {
    const dir = await tempDir('drift-shrunk-filings');
    const store = await firstBuilt(dir);
    const current = await pointer(store, 'smart-money');
    const sources = await sampleCopy(dir, 'cut-tables');
    // One filing folder in four: its newest information table ends after its first half of rows
    // (still well-formed XML). Filers who file full submission files are left as they are.
    const folders = [];
    for (const filer of await filers(sources)) if (!filer.newest.endsWith('.txt')) folders.push(filer);
    for (const [i, filer] of folders.entries()) {
      if (i % 4 !== 0) continue;
      const table = path.join(filer.newest, 'infotable.xml');
      const xml = await readFile(table, 'utf8');
      const rows = xml.split('<infoTable>');
      const kept = rows.slice(0, 1 + Math.floor((rows.length - 1) / 2));
      await writeFile(table, `${kept.join('<infoTable>').replace(/\s*$/, '')}\n</informationTable>\n`);
    }

    const result = await build(store, sources, HOUR_LATER, '--datasets', 'smart-money', '--json');
    expect(result.exitCode).toBe(2);
    const d = report(result.stdout).datasets[0]!;
    expect(d).toMatchObject({ outcome: 'failed', madeCurrent: false });
    expect(failing(d)).toEqual(['drift.smart-money.shrunk-filings']);
    expect(d.drift.find((r) => r.rule === 'drift.smart-money.shrunk-filings')!.message).toMatch(
      /^\d+ of 25 investors' same filing smaller .*: the same filing \(period and filing date\) gives fewer positions .*, e\.g\. .*2026-09-30 filed 2026-\d\d-\d\d: 4\d -> 2\d positions/,
    );
    expect(await pointer(store, 'smart-money')).toBe(current);
  });

  it('fails when a calendar file is an older copy: its events verified earlier than the current snapshot says', async () => {
    const dir = await tempDir('drift-older-calendar');
    const store = await firstBuilt(dir);
    const current = await pointer(store, 'calendar');
    const older = path.join(dir, 'two-weeks-ago');
    expect((await runCli(['sample', '--out', older, '--now', '2026-11-08T12:00:00.000Z', '--quiet'])).exitCode).toBe(0);
    const sources = await sampleCopy(dir, 'older-calendar');
    await cp(path.join(older, 'calendar/central-banks.yaml'), path.join(sources, 'calendar/central-banks.yaml'));

    const result = await build(store, sources, HOUR_LATER, '--datasets', 'calendar', '--json');
    expect(result.exitCode).toBe(2);
    const d = report(result.stdout).datasets[0]!;
    expect(d).toMatchObject({ outcome: 'failed', madeCurrent: false });
    expect(failing(d)).toEqual(['drift.calendar.older-verification']);
    expect(d.drift.find((r) => r.rule === 'drift.calendar.older-verification')!.message).toMatch(
      /events verified earlier than before .*e\.g\. evt-[0-9a-f]{16} \(2026-11-21T09:00:00\.000Z -> 2026-11-0\d.*an older copy of a calendar file was read$/,
    );
    expect(await pointer(store, 'calendar')).toBe(current);
  });

  it("fails when a calendar file's events come back under other ids (another environment's copy), however steady the count", async () => {
    const dir = await tempDir('drift-upcoming-lost');
    const store = await firstBuilt(dir);
    const current = await pointer(store, 'calendar');
    const sources = await sampleCopy(dir, 'staging-calendar');
    const releases = path.join(sources, 'calendar/releases.json');
    await writeFile(releases, (await readFile(releases, 'utf8')).replaceAll('"eventName": "', '"eventName": "QA '));

    const result = await build(store, sources, HOUR_LATER, '--datasets', 'calendar', '--json');
    expect(result.exitCode).toBe(2);
    const d = report(result.stdout).datasets[0]!;
    expect(d).toMatchObject({ outcome: 'failed', madeCurrent: false });
    expect(failing(d)).toEqual(['drift.calendar.upcoming-lost']);
    expect(d.drift.find((r) => r.rule === 'drift.events.shrink')).toMatchObject({ status: 'pass' });
    expect(await pointer(store, 'calendar')).toBe(current);
  });
});

describe("drift: upstream's bad day behind a warning", () => {
  it('fails when a tenth of the filers are gone although their filings are current (a partial download, a moved folder)', async () => {
    const dir = await tempDir('drift-gone-while-fresh');
    const store = await firstBuilt(dir);
    const current = await pointer(store, 'smart-money');
    const sources = await sampleCopy(dir, 'tenth-gone');
    for (const [i, filer] of (await filers(sources)).entries()) if (i % 10 === 0) await rm(filer.folder, { recursive: true });

    const result = await build(store, sources, HOUR_LATER, '--datasets', 'smart-money', '--json');
    expect(result.exitCode).toBe(2);
    const d = report(result.stdout).datasets[0]!;
    expect(d).toMatchObject({ outcome: 'failed', madeCurrent: false });
    // Below the investors thresholds (10 % warns): before, only investors-gone warned, and the build made it current.
    expect(d.drift.find((r) => r.rule === 'drift.investors.shrink')).toMatchObject({ status: 'pass' });
    expect(failing(d)).toEqual(['drift.smart-money.gone-while-fresh']);
    expect(d.drift.find((r) => r.rule === 'drift.smart-money.gone-while-fresh')!.message).toMatch(
      /^2 of 25 investors gone with a filing still current \(8\.0%\): not aged out .*, e\.g\. .* \(.*, last filing 2026-09-30\)/,
    );
    expect(await pointer(store, 'smart-money')).toBe(current);
  });

  it('passes an investor aged out by the quarter rule: investors-gone names it, nothing fails', async () => {
    const dir = await tempDir('drift-aged-out');
    const store = path.join(dir, 'store');
    const sources = await sampleCopy(dir, 'one-behind');
    await rm((await filers(sources))[0]!.newest, { recursive: true });
    expect((await build(store, sources, NOW, '--datasets', 'smart-money', '--json')).exitCode).toBe(0);
    // Its 2026-06-30 filing is older than 180 days five weeks later: left out by the quarter rule.
    const later = await build(store, sources, '2026-12-28T12:00:00.000Z', '--datasets', 'smart-money', '--json');
    expect(later.exitCode).toBe(0);
    const d = report(later.stdout).datasets[0]!;
    expect(d.madeCurrent).toBe(true);
    expect(d.drift.filter((r) => r.status !== 'pass').map((r) => r.rule)).toEqual(['drift.smart-money.investors-gone']);
  });

  it('fails an emptied investors.yaml with --all-filers, where every investor stays under its filer name, unclassified', async () => {
    const dir = await tempDir('drift-registry-lost');
    const store = path.join(dir, 'store');
    const sources = await sampleCopy(dir, 'registry');
    expect((await build(store, sources, NOW, '--datasets', 'smart-money', '--all-filers', '--json')).exitCode).toBe(0);
    const current = await pointer(store, 'smart-money');
    await writeFile(path.join(sources, 'filings/investors.yaml'), 'investors: []\n');

    const result = await build(store, sources, HOUR_LATER, '--datasets', 'smart-money', '--all-filers', '--json');
    expect(result.exitCode).toBe(2);
    const d = report(result.stdout).datasets[0]!;
    expect(d).toMatchObject({ outcome: 'failed', madeCurrent: false });
    // The same investors under the same slugs: no count or key moved.
    expect(d.drift.filter((r) => r.rule.startsWith('drift.investors.')).every((r) => r.status === 'pass')).toBe(true);
    expect(failing(d)).toEqual(['drift.smart-money.registry-lost']);
    expect(d.drift.find((r) => r.rule === 'drift.smart-money.registry-lost')!.message).toMatch(
      /^25 of 25 registry investors now unclassified \(100\.0%\): their entries are missing from filings\/investors\.yaml, e\.g\. [A-Z][a-z].* \([a-z-]+, [a-z-]+ -> [A-Z &]+, unclassified\)/,
    );
    expect(await pointer(store, 'smart-money')).toBe(current);
  });

  it('fails when every article of one locale is gone, though the count only warns', async () => {
    const dir = await tempDir('drift-locale-gone');
    const store = await firstBuilt(dir);
    const sources = await sampleCopy(dir, 'no-zh');
    await rm(path.join(sources, 'articles/zh-CN'), { recursive: true });

    await expectArticlesFailOn(
      store,
      sources,
      'drift.articles.locales',
      'no article left in zh-CN (2 article(s) before): a folder, feed or source of that locale is missing from the sources',
    );
  });
  it('fails when a feed answers an empty channel or an error page, though the count only warns', async () => {
    const dir = await tempDir('drift-feeds-emptied');
    const store = await firstBuilt(dir);
    const sources = await sampleCopy(dir, 'feeds-emptied');
    const atom = path.join(sources, 'articles/feeds/hanbit-economy.atom');
    await writeFile(atom, (await readFile(atom, 'utf8')).replace(/<entry>[\s\S]*<\/entry>/, ''));
    await writeFile(
      path.join(sources, 'articles/feeds/harbor-wire.xml'),
      '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n',
    );

    await expectArticlesFailOn(
      store,
      sources,
      'drift.articles.feeds',
      'no article left from the feed of hanbit-economy (2 article(s) before), harbor-wire (2 article(s) before): the feed is empty, unreadable or missing from the sources',
    );
  });
});

describe('drift: rebuilds that must pass', () => {
  it('passes a normal day: a new article, a few events verified again, one filer whose newest filing arrives late', async () => {
    const dir = await tempDir('drift-normal-day');
    const store = path.join(dir, 'store');
    const yesterday = await sampleCopy(dir, 'yesterday');
    const late = (await filers(yesterday))[0]!.newest;
    await rm(late, { recursive: true });
    expect((await build(store, yesterday, NOW, '--json')).exitCode).toBe(0);

    const today = await sampleCopy(dir, 'today');
    const enUS = path.join(today, 'articles/en-US');
    const added = (await readFile(path.join(enUS, '2026-11-20-treasury-curve-steepens-after-auction.md'), 'utf8'))
      .replace(/^title: .*$/m, 'title: "Dollar firms as yields climb"')
      .replace(/^date: .*$/m, 'date: 2026-11-22T07:30:00-05:00');
    await writeFile(path.join(enUS, '2026-11-22-dollar-firms-as-yields-climb.md'), added);
    const csv = path.join(today, 'calendar/activity.csv');
    const lines = (await readFile(csv, 'utf8')).split('\n');
    for (const i of [5, 6, 7]) lines[i] = lines[i]!.replace(/,[^,]*$/, ',2026-11-22T12:30:00.000Z');
    await writeFile(csv, lines.join('\n'));

    const next = await build(store, today, HOUR_LATER, '--json');
    expect(next.exitCode).toBe(0);
    for (const d of report(next.stdout).datasets) {
      expect(d.madeCurrent).toBe(true);
      expect(d.drift.filter((r) => r.status !== 'pass')).toEqual([]);
    }
    const diff = async (dataset: string) =>
      JSON.parse(String((await runCli(['diff', dataset, '--store', store, '--json'])).stdout)).resources[0] as Record<string, unknown>;
    expect(await diff('articles')).toMatchObject({ added: 1, removed: 0, changed: 0 });
    expect(await diff('calendar')).toMatchObject({ added: 0, removed: 0, changed: 3, changedFields: { verifiedAt: 3 } });
    expect(await diff('smart-money')).toMatchObject({ resource: 'investors', changed: 1, changedFields: { period: 1, filedAt: 1 } });
  });

  it('passes the same sources an hour later', async () => {
    const store = await firstBuilt(await tempDir('drift-same'));
    const again = await build(store, SAMPLE, HOUR_LATER, '--json');
    expect(again.exitCode).toBe(0);
    for (const d of report(again.stdout).datasets) {
      expect(d.madeCurrent).toBe(true);
      expect(d.drift.filter((r) => r.status !== 'pass')).toEqual([]);
      expect(d.drift.length).toBeGreaterThan(3);
    }
  });

  it('passes a new quarter of 13F filings for every filer', async () => {
    const dir = await tempDir('drift-quarter');
    const store = await firstBuilt(dir);
    const later = path.join(dir, 'next-quarter');
    expect((await runCli(['sample', '--out', later, '--now', '2027-02-22T00:00:00Z'])).exitCode).toBe(0);
    const next = await build(store, later, '2027-02-22T12:00:00.000Z', '--datasets', 'smart-money', '--json');
    expect(next.exitCode).toBe(0);
    const d = report(next.stdout).datasets[0]!;
    expect(d.drift.filter((r) => r.status !== 'pass')).toEqual([]);
    expect(d.drift.find((r) => r.rule === 'drift.smart-money.newest-quarter')).toMatchObject({ status: 'pass' });
    const diff = JSON.parse(String((await runCli(['diff', 'smart-money', '--store', store, '--json'])).stdout));
    const investors = diff.resources.find((r: { resource: string }) => r.resource === 'investors');
    expect(investors).toMatchObject({ before: 25, after: 25, changed: 25, added: 0, removed: 0 });
    expect(investors.changedFields).toMatchObject({ period: 25, filedAt: 25 });
  });

  it('passes one article added, one removed and one retitled, and diff reports exactly those three', async () => {
    const dir = await tempDir('drift-articles');
    const store = await firstBuilt(dir);
    const edited = path.join(dir, 'edited');
    await cp(SAMPLE, edited, { recursive: true });
    const enUS = path.join(edited, 'articles/en-US');
    await rm(path.join(enUS, '2026-11-12-chipmakers-raise-capital-spending.md'));
    const retitled = path.join(enUS, '2026-11-17-holiday-retail-sales-beat-forecasts.md');
    const text = await readFile(retitled, 'utf8');
    await writeFile(retitled, text.replace(/^title: .*$/m, 'title: "Holiday retail sales beat every forecast"'));
    const added = (await readFile(path.join(enUS, '2026-11-20-treasury-curve-steepens-after-auction.md'), 'utf8')).replace(
      /^title: .*$/m,
      'title: "Dollar firms as yields climb"',
    );
    await writeFile(path.join(enUS, '2026-11-19-dollar-firms-as-yields-climb.md'), added);

    const next = await build(store, edited, HOUR_LATER, '--datasets', 'articles', '--json');
    expect(next.exitCode).toBe(0);
    expect(report(next.stdout).datasets[0]!.drift.filter((r) => r.status !== 'pass')).toEqual([]);

    const diff = JSON.parse(String((await runCli(['diff', 'articles', 'previous', 'current', '--store', store, '--json'])).stdout));
    expect(diff.resources).toEqual([
      expect.objectContaining({
        resource: 'articles',
        before: 19,
        after: 19,
        added: 1,
        removed: 1,
        changed: 1,
        unchanged: 17,
        addedKeys: ['en-US/dollar-firms-as-yields-climb'],
        removedKeys: ['en-US/chipmakers-raise-capital-spending'],
        changedRecords: [{ key: 'en-US/holiday-retail-sales-beat-forecasts', fields: ['title'] }],
        changedFields: { title: 1 },
      }),
    ]);
  });
});

describe('--format markdown', () => {
  const md = new MarkdownIt();

  /** Every table of a Markdown document as rows of cell texts, header row first, parsed by markdown-it. */
  function tables(markdown: string): string[][][] {
    const result: string[][][] = [];
    let table: string[][] | null = null;
    let row: string[] | null = null;
    for (const token of md.parse(markdown, {})) {
      if (token.type === 'table_open') table = [];
      else if (token.type === 'table_close') {
        result.push(table!);
        table = null;
      } else if (token.type === 'tr_open') row = [];
      else if (token.type === 'tr_close') {
        table!.push(row!);
        row = null;
      } else if (token.type === 'inline' && row !== null) row.push(token.content);
    }
    return result;
  }

  it('renders build, gate and diff as GitHub-flavoured tables with ✓ / ⚠ / ✗, time left and drift figures', async () => {
    const dir = await tempDir('drift-markdown');
    const store = await firstBuilt(dir);
    const partial = await partialTree(dir);

    const failed = await build(store, partial, HOUR_LATER, '--format', 'markdown');
    expect(failed.exitCode).toBe(2);
    const [summary] = tables(String(failed.stdout));
    expect(summary![0]).toEqual(['dataset', 'status', 'outcome', 'snapshot', 'records', 'time left', 'drift', 'rejected']);
    const byDataset = Object.fromEntries(summary!.slice(1).map((r) => [r[0], r]));
    expect(byDataset['smart-money']!.slice(1, 3)).toEqual(['✗', 'failed']);
    expect(byDataset['smart-money']![6]).toContain('✗ drift.investors.shrink 25 -> 8 records (-68.0%)');
    expect(byDataset.calendar!.slice(1, 3)).toEqual(['✓', 'published']);
    expect(byDataset.calendar![5]).toBe('96d 21h');
    expect(byDataset.calendar![7]).toBe('0');
    const checks = tables(String(failed.stdout)).find((t) => t.some((r) => r[0] === 'drift.investors.lost-keys'))!;
    expect(checks.find((r) => r[0] === 'drift.investors.lost-keys')!.slice(1, 3)).toEqual(['✗ fail', '17 of 25 keys lost (68.0%)']);

    const gate = await runCli(['gate', '--store', store, '--now', HOUR_LATER, '--format', 'markdown']);
    expect(gate.exitCode).toBe(0);
    const [gateSummary] = tables(String(gate.stdout));
    expect(gateSummary![0]).toEqual(['dataset', 'status', 'snapshot', 'time left', 'drift', 'not passing']);
    expect(gateSummary!.slice(1).map((r) => [r[0], r[1], r[5]])).toEqual([
      ['articles', '✓', '-'],
      ['calendar', '✓', '-'],
      ['smart-money', '✓', '-'],
    ]);
    expect(gateSummary![3]![3]).toBe('13d 23h');

    const diff = await runCli(['diff', 'calendar', '--store', store, '--format', 'markdown']);
    expect(diff.exitCode).toBe(0);
    const [diffTable] = tables(String(diff.stdout));
    expect(diffTable).toEqual([
      ['resource', 'before', 'after', 'added', 'removed', 'changed', 'unchanged'],
      ['events', '174', '174', '0', '0', '0', '174'],
    ]);
  });
});
