import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeForm13fDataset } from '../../src/sample/form13f-dataset.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { type EdgarServer, type RecordedRequest, startEdgarServer, submissionPath } from '../helpers/edgar-server.js';

/**
 * `pdsnap fetch` against a local server that speaks as SEC EDGAR and the feed providers do
 * (test/helpers/edgar-server.ts): the sample's filings in EDGAR's layout, its feeds and provider
 * export, a Form 13F data set. The command runs through the bundle's main in this process; every
 * request it makes is recorded by the server. The clock of fetchedAt and of build is PDSNAP_CLOCK.
 */

const NOW = '2026-11-22T12:00:00.000Z';
const CLOCK = '2026-11-22T12:30:00.000Z';
const USER_AGENT = 'Pdsnap Tests fetch-tests@pdsnap.example';
const TOKEN = 'tok-s3cret-harbor-wire';
const DATASET = '2026q3_form13f.zip';

let work: string;
let remote: string;
let server: EdgarServer;
/** The feed provider: a host of its own, as feeds are nobody's business at SEC. */
let feeds: EdgarServer;
/** The main tree: fetched in full once, then copied for the cases that need files already there. */
let main: string;

const FEEDS = [
  ['harbor-wire', 'feeds/harbor-wire.xml', 'application/rss+xml'],
  ['hanbit-economy', 'feeds/hanbit-economy.atom', 'application/atom+xml'],
  ['sakura-markets', 'feeds/sakura-markets.json', 'application/feed+json'],
] as const;
const EXPORT = 'calendar/provider/ff_calendar_thisweek.json';

beforeAll(async () => {
  work = await tempDir('fetch');
  remote = path.join(work, 'remote');
  const sample = await runCli(['sample', '--out', remote, '--now', NOW]);
  expect(sample.exitCode, sample.stderr).toBe(0);
  const zip = path.join(work, DATASET);
  await writeForm13fDataset(zip, { period: '2026-09-30', filers: 3, seed: 7 });
  const documents: Record<string, { body: Buffer; contentType: string }> = {};
  for (const [, feed, contentType] of FEEDS)
    documents[`/${feed}`] = { body: await readFile(path.join(remote, 'articles', feed)), contentType };
  documents[`/${EXPORT}`] = { body: await readFile(path.join(remote, EXPORT)), contentType: 'application/json' };
  // 30 managers: the sample's 28 and two more, 62 filings in all; 2026 QTR4 in the daily indexes' layout.
  server = await startEdgarServer({
    now: new Date(NOW),
    managers: 30,
    dailyLayout: ['2026/QTR4'],
    datasets: { [DATASET]: await readFile(zip) },
  });
  feeds = await startEdgarServer({ now: new Date(NOW), managers: 0, documents });
  main = await sourcesToFetch('main');
});

afterAll(async () => {
  await server?.close();
  await feeds?.close();
});

/**
 * The sample as an operator would set it up for fetch: no filings, feeds or export on disk, the
 * feeds' and the export's addresses in sources.yaml and the sidecar (harbor-wire with a token named
 * by an environment variable), a data set in the config file.
 */
async function sourcesToFetch(name: string): Promise<string> {
  const sources = path.join(work, name);
  await cp(remote, sources, { recursive: true });
  await rm(path.join(sources, 'filings/edgar'), { recursive: true });
  for (const [, feed] of FEEDS) await rm(path.join(sources, 'articles', feed));
  await rm(path.join(sources, EXPORT));
  const registry = path.join(sources, 'articles/sources.yaml');
  let text = await readFile(registry, 'utf8');
  for (const [id, feed] of FEEDS) {
    const headers = id === 'harbor-wire' ? `\n      headers:\n        Authorization: "Bearer \${HARBOR_WIRE_TOKEN}"` : '';
    text = text.replace(`      path: ${feed}\n`, `      path: ${feed}\n      url: ${feeds.url}/${feed}${headers}\n`);
  }
  await writeFile(registry, text);
  const sidecar = path.join(sources, `${EXPORT}.meta.yaml`);
  await writeFile(sidecar, `${await readFile(sidecar, 'utf8')}url: ${feeds.url}/${EXPORT}\n`);
  await writeFile(path.join(work, `${name}.config.yaml`), `fetch:\n  form13fDatasets: [${DATASET}]\n`);
  return sources;
}

/** A copy of the main tree after its first fetch, with a config file of its own. */
async function copyOfMain(name: string, config = `fetch:\n  form13fDatasets: [${DATASET}]\n`): Promise<string> {
  const sources = path.join(work, name);
  await cp(main, sources, { recursive: true });
  await writeFile(path.join(work, `${name}.config.yaml`), config);
  return sources;
}

function pdsnapFetch(sources: string, args: string[] = [], env: Record<string, string | undefined> = {}) {
  const config = path.join(work, `${path.basename(sources)}.config.yaml`);
  return runCli(['fetch', '--sources', sources, '--now', NOW, '--config', config, ...args], {
    cwd: work,
    env: { PDSNAP_CLOCK: CLOCK, PDSNAP_SEC_URL: server.url, PDSNAP_SEC_USER_AGENT: USER_AGENT, HARBOR_WIRE_TOKEN: TOKEN, ...env },
  });
}

/** Runs `work` and gives the requests both servers read meanwhile (SEC's first), each list in the order read. */
async function requestsDuring<T>(run: () => Promise<T>): Promise<{ result: T; requests: RecordedRequest[]; sec: RecordedRequest[] }> {
  const [secBefore, feedsBefore] = [server.requests.length, feeds.requests.length];
  const result = await run();
  const sec = server.requests.slice(secBefore);
  return { result, sec, requests: [...sec, ...feeds.requests.slice(feedsBefore)] };
}

const isFiling = (r: RecordedRequest) => r.path.startsWith('/Archives/edgar/data/');

/** The most requests the server read within any one second. */
function mostInOneSecond(requests: readonly RecordedRequest[]): number {
  const times = requests.map((r) => r.at).sort((a, b) => a - b);
  let most = 0;
  for (const [i, t] of times.entries()) most = Math.max(most, times.slice(i).filter((s) => s < t + 1000).length);
  return most;
}

async function partFiles(folder: string): Promise<string[]> {
  return (await readdir(folder, { recursive: true })).filter((name) => name.endsWith('.part'));
}

describe('pdsnap fetch: configuration checked before any request', () => {
  it('refuses to ask SEC anything without PDSNAP_SEC_USER_AGENT (exit 3), and the server sees no request', async () => {
    const sources = await sourcesToFetch('no-identity');
    const { result, requests } = await requestsDuring(() => pdsnapFetch(sources, ['--json'], { PDSNAP_SEC_USER_AGENT: undefined }));
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(result.stdout).error.message).toMatch(
      /PDSNAP_SEC_USER_AGENT is not set: SEC asks every automated client to declare a name and a contact e-mail/,
    );
    expect(requests).toEqual([]);
    const noEmail = await requestsDuring(() => pdsnapFetch(sources, [], { PDSNAP_SEC_USER_AGENT: 'Pdsnap Tests' }));
    expect(noEmail.result.exitCode).toBe(3);
    expect(noEmail.result.stderr).toMatch(/has no contact e-mail/);
    expect(noEmail.requests).toEqual([]);
  });

  it('refuses a feed header naming a variable that is not set (exit 3), naming it, and asks for nothing', async () => {
    const sources = await sourcesToFetch('no-token');
    const { result, requests } = await requestsDuring(() => pdsnapFetch(sources, [], { HARBOR_WIRE_TOKEN: undefined }));
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(
      /articles\/sources\.yaml \(harbor-wire\) feed: header Authorization needs the environment variable HARBOR_WIRE_TOKEN, which is not set/,
    );
    expect(requests).toEqual([]);
  });

  it('refuses to run beside another fetch of the same sources (exit 3), and asks for nothing', async () => {
    const sources = await sourcesToFetch('locked');
    // The lock as a live fetch holds it: this very process, started before the lock was taken.
    await mkdir(path.join(sources, '.fetch.lock'));
    await writeFile(
      path.join(sources, '.fetch.lock/holder.json'),
      JSON.stringify({ host: hostname(), pid: process.pid, startedAt: new Date().toISOString() }),
    );
    const { result, requests } = await requestsDuring(() => pdsnapFetch(sources));
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(
      new RegExp(
        `another pdsnap fetch \\(pid ${process.pid} on .*\\) is fetching into .*locked; run again once it is done; nothing was fetched`,
      ),
    );
    expect(requests).toEqual([]);
  });

  it('--dry-run asks for nothing and lists what a run would fetch: the tracked filers of the indexes on disk', async () => {
    const sources = await sourcesToFetch('dry-run');
    const { result, requests } = await requestsDuring(() => pdsnapFetch(sources, ['--dry-run', '--json']));
    expect(result.exitCode, result.stderr).toBe(0);
    expect(requests).toEqual([]);
    const report = JSON.parse(result.stdout);
    expect(report.dryRun).toBe(true);
    expect(report.files.map((f: { kind: string }) => f.kind).sort()).toEqual([
      'calendar-export',
      'feed',
      'feed',
      'feed',
      'form-index',
      'form-index',
      'form13f-dataset',
    ]);
    expect(report.files.every((f: { outcome: string; reason: string }) => f.outcome === 'skipped' && f.reason === 'dry run')).toBe(true);
    expect(await readdir(sources)).not.toContain('fetch-ledger.ndjson');
  });
});

describe('pdsnap fetch end to end', () => {
  let first: Awaited<ReturnType<typeof requestsDuring<Awaited<ReturnType<typeof pdsnapFetch>>>>>;

  beforeAll(async () => {
    first = await requestsDuring(() => pdsnapFetch(main, ['--filers', 'all', '--json', '--output', path.join(work, 'first-report.json')]));
  });

  it('fetches every Form 13F filing of the indexes, the data set, the feeds and the export (exit 0)', async () => {
    expect(first.result.exitCode, first.result.stderr).toBe(0);
    const report = JSON.parse(first.result.stdout);
    expect(report.ok).toBe(true);
    const filings = report.files.filter((f: { kind: string }) => f.kind === 'filing');
    expect(filings).toHaveLength(server.submissions.length);
    expect(server.submissions.length).toBeGreaterThanOrEqual(60);
    expect(report.counts).toEqual({ fetched: report.files.length, unchanged: 0, failed: 0, skipped: 0 });
    for (const s of server.submissions) {
      expect(await readFile(path.join(main, 'filings/edgar', s.cik, `${s.accession}.txt`), 'utf8')).toBe(s.text);
    }
    expect(await readFile(path.join(main, 'filings/datasets', DATASET))).toEqual(await readFile(path.join(work, DATASET)));
    for (const [, feed] of FEEDS)
      expect(await readFile(path.join(main, 'articles', feed))).toEqual(await readFile(path.join(remote, 'articles', feed)));
    expect(await readFile(path.join(main, EXPORT))).toEqual(await readFile(path.join(remote, EXPORT)));
    // Other forms of the index are never asked for, nor a 13F row that names no full submission (it is noted).
    expect(first.sec.filter(isFiling)).toHaveLength(server.submissions.length);
    expect(first.sec).toHaveLength(server.submissions.length + 3);
    expect(report.notes).toContainEqual(expect.stringMatching(/form\.idx, line \d+: file name .*-index\.htm" is not a full submission/));
    expect(JSON.parse(await readFile(path.join(work, 'first-report.json'), 'utf8'))).toEqual(report);
  });

  it('asks SEC as it declared itself, gzip accepted, never more than 8 requests in one second', () => {
    const { sec } = first;
    expect(sec.length).toBeGreaterThanOrEqual(63);
    for (const request of sec) {
      expect(request.headers['user-agent']).toBe(USER_AGENT);
      expect(request.headers['accept-encoding']).toBe('gzip');
    }
    expect(mostInOneSecond(sec)).toBeLessThanOrEqual(8);
    const report = JSON.parse(first.result.stdout);
    expect(report.highestSecRate).toBeLessThanOrEqual(8);
    expect(report.sec).toMatchObject({ maxRps: 8, filers: 'all', quarters: ['2026 QTR3', '2026 QTR4'], requests: sec.length });
    // Feeds are not SEC's: pdsnap's own User-Agent, and the token where the source asks for it.
    const harbor = first.requests.find((r) => r.path === '/feeds/harbor-wire.xml')!;
    expect(first.requests.filter((r) => r.path.startsWith('/feeds/') && r.headers['user-agent'] === USER_AGENT)).toEqual([]);
    expect(harbor.headers['user-agent']).toMatch(/^pdsnap\/\d+\.\d+\.\d+$/);
    expect(harbor.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('keeps every secret out of the output and the ledger, and records each file in the ledger', async () => {
    const ledger = await readFile(path.join(main, 'fetch-ledger.ndjson'), 'utf8');
    for (const text of [first.result.stdout, first.result.stderr, ledger, await readFile(path.join(work, 'first-report.json'), 'utf8')]) {
      expect(text).not.toContain(TOKEN);
    }
    const entries = ledger
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const harbor = entries.find((e) => e.path === 'articles/feeds/harbor-wire.xml');
    expect(harbor).toEqual({
      path: 'articles/feeds/harbor-wire.xml',
      url: `${feeds.url}/feeds/harbor-wire.xml`,
      fetchedAt: CLOCK,
      status: 200,
      etag: expect.stringMatching(/^"[0-9a-f]{16}"$/),
      lastModified: 'Sat, 21 Nov 2026 22:15:04 GMT',
      bytes: expect.any(Number),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(entries).toHaveLength(JSON.parse(first.result.stdout).files.length);
  });

  it('asks again for nothing it has: no filing downloaded twice, every index, data set and feed answered 304', async () => {
    const second = await requestsDuring(() => pdsnapFetch(main, ['--filers', 'all', '--json']));
    expect(second.result.exitCode, second.result.stderr).toBe(0);
    expect(second.sec.filter(isFiling)).toEqual([]);
    expect(second.requests.map((r) => [r.path, r.status]).sort()).toEqual(
      [
        '/Archives/edgar/full-index/2026/QTR3/form.idx',
        '/Archives/edgar/full-index/2026/QTR4/form.idx',
        `/files/structureddata/data/form-13f-data-sets/${DATASET}`,
        ...FEEDS.map(([, feed]) => `/${feed}`),
        `/${EXPORT}`,
      ]
        .map((p) => [p, 304])
        .sort(),
    );
    const report = JSON.parse(second.result.stdout);
    expect(report.counts).toEqual({ fetched: 0, unchanged: report.files.length, failed: 0, skipped: 0 });
    expect(report.requests).toBe(second.requests.length);
  });

  it('build publishes what was fetched, inspect names where each file came from, and gate passes', async () => {
    const store = path.join(work, 'store');
    const env = { PDSNAP_CLOCK: CLOCK };
    const build = await runCli(['build', '--sources', main, '--store', store, '--now', NOW, '--json'], { env });
    expect(build.exitCode, build.stdout).toBe(0);
    const datasets = JSON.parse(build.stdout).datasets as {
      dataset: string;
      outcome: string;
      snapshotId: string;
      records: Record<string, number>;
    }[];
    expect(datasets.map((d) => [d.dataset, d.outcome])).toEqual([
      ['articles', 'published'],
      ['calendar', 'published'],
      ['smart-money', 'published'],
    ]);
    expect(datasets[2]!.records.investors).toBeGreaterThan(20);

    const inspect = await runCli(['inspect', datasets[2]!.snapshotId, '--store', store, '--json'], { env });
    const sources = JSON.parse(inspect.stdout).manifest.sources as { path: string; url?: string; fetchedAt?: string }[];
    const filing = sources.find((s) => s.path.startsWith('filings/edgar/'))!;
    expect(filing.url).toBe(`${server.url}/Archives/${filing.path.replace('filings/', '').replace(/^edgar\/(\d+)\//, 'edgar/data/$1/')}`);
    expect(filing.fetchedAt).toBe(CLOCK);
    // The registry was not fetched: it carries no address.
    expect(sources.find((s) => s.path === 'filings/investors.yaml')).not.toHaveProperty('url');

    const articles = await runCli(['inspect', datasets[0]!.snapshotId, '--store', store], { env });
    expect(articles.exitCode).toBe(0);
    expect(articles.stdout).toMatch(
      new RegExp(
        `articles/feeds/harbor-wire\\.xml .* ${feeds.url.replace(/[.]/g, '\\.')}/feeds/harbor-wire\\.xml +${CLOCK.replace(/[.]/g, '\\.')}`,
      ),
    );
    expect(articles.stdout).toMatch(/, 3 fetched by pdsnap fetch; all digests verified/);

    const gate = await runCli(['gate', '--store', store, '--min-remaining', '24h'], { env });
    expect(gate.exitCode, gate.stdout).toBe(0);
  });

  it('takes the filers of filings/investors.yaml by default', async () => {
    const sources = await sourcesToFetch('tracked');
    await cp(path.join(main, 'filings/edgar-index'), path.join(sources, 'filings/edgar-index'), { recursive: true });
    const dry = await pdsnapFetch(sources, ['--dry-run', '--json', '--datasets', 'smart-money']);
    const report = JSON.parse(dry.stdout);
    expect(report.sec.filers).toBe('tracked');
    const registry = await readFile(path.join(sources, 'filings/investors.yaml'), 'utf8');
    const tracked = new Set([...registry.matchAll(/cik: "(\d+)"/g)].map((m) => m[1]));
    const planned = report.files.filter((f: { kind: string }) => f.kind === 'filing').map((f: { path: string }) => f.path.split('/')[2]);
    expect(planned.length).toBeGreaterThan(40);
    expect(planned.every((cik: string) => tracked.has(cik))).toBe(true);
    expect(server.submissions.filter((s) => !tracked.has(s.cik)).length).toBeGreaterThan(0);
  });
});

describe('pdsnap fetch when SEC asks it to slow down, or fails', () => {
  /** A copy of the main tree with three filings taken away again: a run asks for those three only. */
  async function missingThree(name: string) {
    const sources = await copyOfMain(name);
    const gone = server.submissions.slice(10, 13);
    for (const s of gone) await rm(path.join(sources, 'filings/edgar', s.cik, `${s.accession}.txt`));
    return { sources, gone: gone.map(submissionPath) };
  }

  it('waits as 429 Retry-After: 2 says, asking nothing meanwhile, then fetches', async () => {
    const { sources, gone } = await missingThree('retry-after');
    server.fault(gone[0]!, { kind: 'status', status: 429, retryAfter: '2' }, 1);
    const { result, sec: requests } = await requestsDuring(() =>
      pdsnapFetch(sources, ['--datasets', 'smart-money', '--filers', 'all', '--json'], { PDSNAP_SEC_MAX_RPS: '2' }),
    );
    server.clearFaults();
    expect(result.exitCode, result.stdout).toBe(0);
    const tries = requests.filter((r) => r.path === gone[0]);
    expect(tries.map((r) => r.status)).toEqual([429, 200]);
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(2000);
    // No request toward SEC started during the pause it asked for.
    expect(requests.filter((r) => r.at > tries[0]!.at + 100 && r.at < tries[0]!.at + 2000)).toEqual([]);
    expect(JSON.parse(result.stdout).sec.waitedMs).toBeGreaterThanOrEqual(1900);
  });

  it("stops asking SEC on its 403 rate page when 10 minutes do not fit --max-wait, with SEC's reason (exit 2)", async () => {
    const { sources } = await missingThree('rate-page');
    const index = '/Archives/edgar/full-index/2026/QTR3/form.idx';
    server.fault(index, { kind: 'sec-rate-page' });
    const { result, sec } = await requestsDuring(() =>
      pdsnapFetch(sources, ['--datasets', 'smart-money', '--filers', 'all', '--max-wait', '1m', '--json'], { PDSNAP_SEC_MAX_RPS: '1' }),
    );
    server.clearFaults();
    expect(result.exitCode).toBe(2);
    // The rate page was the first answer; nothing was asked of SEC after it.
    expect(sec.map((r) => [r.path, r.status])).toEqual([[index, 403]]);
    const report = JSON.parse(result.stdout);
    expect(report.files[0]).toMatchObject({
      path: 'filings/edgar-index/2026/QTR3/form.idx',
      outcome: 'failed',
      status: 403,
      reason: expect.stringMatching(
        /answered 403 "Request Rate Threshold Exceeded": SEC asks for 10m without requests, more than the 1m left of --max-wait 1m; stopped asking SEC; the last good copy is kept$/,
      ),
    });
    const others = report.files.slice(1).filter((f: { outcome: string }) => f.outcome !== 'unchanged');
    expect(others.map((f: { kind: string }) => f.kind).sort()).toEqual(['filing', 'filing', 'filing', 'form-index', 'form13f-dataset']);
    for (const other of others)
      expect(other).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/^not asked: .*stopped asking SEC$/) });
    expect(await partFiles(path.join(sources, 'filings'))).toEqual([]);
  });

  it('tries a 500 again after a backoff: twice 500, then 200 is fetched', async () => {
    const { sources, gone } = await missingThree('server-errors');
    server.fault(gone[1]!, { kind: 'status', status: 500 }, 2);
    const { result, sec: requests } = await requestsDuring(() =>
      pdsnapFetch(sources, ['--datasets', 'smart-money', '--filers', 'all', '--json']),
    );
    server.clearFaults();
    expect(result.exitCode, result.stdout).toBe(0);
    expect(requests.filter((r) => r.path === gone[1]).map((r) => r.status)).toEqual([500, 500, 200]);
    expect(JSON.parse(result.stdout).counts).toMatchObject({ fetched: 3, failed: 0 });
  });

  it('refuses a data set that is not a whole ZIP, keeping the last good one', async () => {
    const sources = await copyOfMain('broken-zip');
    const good = await readFile(path.join(sources, 'filings/datasets', DATASET));
    const datasetPath = `/files/structureddata/data/form-13f-data-sets/${DATASET}`;
    server.setDocument(datasetPath, { body: good.subarray(0, good.length - 100), contentType: 'application/zip' });
    const result = await pdsnapFetch(sources, ['--datasets', 'smart-money', '--json']);
    server.setDocument(datasetPath, { body: good, contentType: 'application/zip' });
    expect(result.exitCode).toBe(2);
    const dataset = JSON.parse(result.stdout).files.find((f: { kind: string }) => f.kind === 'form13f-dataset');
    expect(dataset).toMatchObject({
      outcome: 'failed',
      reason: expect.stringMatching(/^not a readable ZIP: .*the last good copy is kept$/),
    });
    expect(await readFile(path.join(sources, 'filings/datasets', DATASET))).toEqual(good);
    expect(await partFiles(path.join(sources, 'filings'))).toEqual([]);
  });
});

describe('pdsnap fetch keeps the last good copy of a feed', () => {
  const FEED = '/feeds/harbor-wire.xml';
  const FILE = 'articles/feeds/harbor-wire.xml';

  async function failingFeed(name: string, fault: Parameters<EdgarServer['fault']>[1], config?: string) {
    const sources = await copyOfMain(name, config);
    const before = await readFile(path.join(sources, FILE));
    feeds.fault(FEED, fault);
    const { result, requests } = await requestsDuring(() => pdsnapFetch(sources, ['--datasets', 'articles', '--json']));
    feeds.clearFaults();
    const feed = JSON.parse(result.stdout).files.find((f: { path: string }) => f.path === FILE);
    expect(result.exitCode).toBe(2);
    expect(await readFile(path.join(sources, FILE))).toEqual(before);
    expect(await partFiles(path.join(sources, 'articles'))).toEqual([]);
    return { feed, requests, sources };
  }

  it('when the body is shorter than its Content-Length', async () => {
    const { feed, requests } = await failingFeed('cut-short', { kind: 'cut-short' }, 'fetch:\n  retries: 1\n');
    expect(feed).toMatchObject({ outcome: 'failed', reason: expect.stringMatching(/closed or reset before the answer ended|cut short/) });
    expect(feed.reason).toMatch(/\(attempt 2 of 2\); the last good copy is kept$/);
    expect(requests.filter((r) => r.path === FEED)).toHaveLength(2);
  });

  it('when the connection is reset in the middle of the body', async () => {
    const { feed } = await failingFeed('reset', { kind: 'reset' }, 'fetch:\n  retries: 0\n');
    expect(feed).toMatchObject({
      outcome: 'failed',
      reason: 'the connection was closed or reset before the answer ended; the last good copy is kept',
    });
  });

  it('when the server stops sending in the middle of the body: the idle timeout ends it', async () => {
    const { feed } = await failingFeed('stall', { kind: 'stall' }, 'fetch:\n  retries: 0\n  timeouts: { idle: 1s }\n');
    expect(feed).toMatchObject({
      outcome: 'failed',
      reason: 'no data for 1s in the middle of the body (idle timeout); the last good copy is kept',
    });
  });

  it('when a gzip bomb inflates past the cap: refused there, in bounded memory', async () => {
    const rssBefore = process.memoryUsage().rss;
    const { feed } = await failingFeed('gzip-bomb', { kind: 'gzip-bomb', inflatedMiB: 1024 }, 'fetch:\n  maxDecodedSize: 16MiB\n');
    expect(feed).toMatchObject({
      outcome: 'failed',
      reason: 'the decoded body is larger than the cap of 16 MiB; refused; the last good copy is kept',
    });
    // 1 GiB inflated, had it been held or written; the cap stopped it at 16 MiB.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * 1024 * 1024);
  });

  it('when the configured 127.0.0.1 feed redirects to 169.254.169.254: refused, never connected', async () => {
    const connects: string[] = [];
    // Records every connection this process opens, and, should the guard ever fail, keeps it on this machine.
    const connect = Socket.prototype.connect;
    Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
      const options = args[0] as { host?: string } | number;
      const host = typeof options === 'object' ? (options.host ?? '') : String(args[1] ?? '');
      connects.push(host);
      if (host.startsWith('169.254.')) throw new Error(`the test refuses to connect to ${host}`);
      return (connect as (...a: unknown[]) => Socket).apply(this, args);
    } as typeof Socket.prototype.connect;
    try {
      const { feed, requests } = await failingFeed('metadata-redirect', {
        kind: 'redirect',
        location: 'http://169.254.169.254/latest/meta-data/iam/',
      });
      expect(feed).toMatchObject({
        outcome: 'failed',
        status: 302,
        reason:
          'a redirect to 169.254.169.254 is a link-local address, where cloud metadata services live; refused (only a host the configuration names may be internal); the last good copy is kept',
      });
      expect(requests.filter((r) => r.path === FEED)).toHaveLength(1);
      expect(connects.filter((host) => host.startsWith('169.254.'))).toEqual([]);
    } finally {
      Socket.prototype.connect = connect;
    }
  });

  it('when a redirect names a host that resolves to an internal address: refused where the connection is made', async () => {
    const port = new URL(feeds.url).port;
    const { feed } = await failingFeed('rebinding', { kind: 'redirect', location: `http://localhost:${port}/feeds/harbor-wire.xml` });
    expect(feed.reason).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address; refused/);
  });

  it('sends configured headers to the configured origin only', async () => {
    // The feed as another host serves it, a little newer.
    const moved = (await readFile(path.join(remote, FILE), 'utf8')).replace('</channel>', '<!-- moved --></channel>');
    const other = await startEdgarServer({
      now: new Date(NOW),
      managers: 0,
      documents: { [FEED]: { body: moved, contentType: 'application/rss+xml' } },
    });
    try {
      const sources = await copyOfMain('cross-origin');
      feeds.fault(FEED, { kind: 'redirect', location: `${other.url}${FEED}` }, 1);
      const result = await pdsnapFetch(sources, ['--datasets', 'articles', '--json']);
      feeds.clearFaults();
      expect(result.exitCode, result.stdout).toBe(0);
      expect(feeds.requests.filter((r) => r.path === FEED).at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(other.requests.map((r) => [r.path, r.headers.authorization])).toEqual([[FEED, undefined]]);
      const ledger = (await readFile(path.join(sources, 'fetch-ledger.ndjson'), 'utf8'))
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(ledger.findLast((entry) => entry.path === FILE)).toMatchObject({
        path: FILE,
        url: `${feeds.url}${FEED}`,
        redirectedTo: `${other.url}${FEED}`,
      });
      expect(await readFile(path.join(sources, FILE), 'utf8')).toBe(moved);
    } finally {
      await other.close();
    }
  });
});

describe('pdsnap fetch reports', () => {
  it('--format markdown: the counts per kind of source, and the failures with their reasons', async () => {
    const sources = await copyOfMain('markdown');
    feeds.fault('/feeds/hanbit-economy.atom', { kind: 'status', status: 404 });
    const result = await pdsnapFetch(sources, ['--datasets', 'articles', '--format', 'markdown']);
    feeds.clearFaults();
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toMatch(
      /^## pdsnap fetch at 2026-11-22T12:00:00\.000Z: ✗ FAILED: 1 source file\(s\) could not be fetched; their last good copies are kept$/m,
    );
    expect(result.stdout).toMatch(/^\| feed \| 0 \| 2 \| 1 \| 0 \|$/m);
    expect(result.stdout).toMatch(
      /^\| articles\/feeds\/hanbit-economy\.atom \| http:\/\/127\.0\.0\.1:\d+\/feeds\/hanbit-economy\.atom \| HTTP 404; the last good copy is kept \|$/m,
    );
  });

  it('text: a table of counts and the last line OK', async () => {
    const sources = await copyOfMain('text');
    const result = await pdsnapFetch(sources, ['--datasets', 'articles,calendar']);
    expect(result.exitCode, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/^feed +0 +3 +0 +0$/m);
    expect(result.stdout).toMatch(/^calendar-export +0 +1 +0 +0$/m);
    expect(result.stdout.split('\n').at(-1)).toBe('OK: 0 fetched, 4 unchanged');
  });
});
