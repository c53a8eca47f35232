import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, commandsFor } from '../../src/cli/commands/index.js';
import { CLI, REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';
import { execa } from 'execa';

/**
 * The CLI in a scheduled job. Every behaviour here is what a run shows (exit codes, what
 * reaches stdout and stderr), so every test runs the built CLI: its main in this process, and a real
 * process where only one shows the behaviour (a closed stdout, `serve`). The clock is injected
 * through PDSNAP_CLOCK; nothing depends on the wall clock.
 */

const NOW = '2026-11-22T12:00:00.000Z';
/** The machine's clock in these tests: one day after the sample's date. */
const CLOCK = { PDSNAP_CLOCK: '2026-11-23T00:00:00Z' };

let sources: string;
let work: string;

beforeAll(async () => {
  work = await tempDir('trust');
  sources = path.join(work, 'sources');
  const sample = await runCli(['sample', '--out', sources, '--now', NOW]);
  expect(sample.exitCode, String(sample.stderr)).toBe(0);
});

function pdsnap(args: string[], env: Record<string, string> = {}) {
  return runCli(args, { cwd: work, env: { ...CLOCK, ...env } });
}

/** One dataset of the sample built at NOW into a store of its own under `work`; the store and the snapshot id. */
async function builtSnapshot(dataset: string, name: string): Promise<{ store: string; id: string }> {
  const store = path.join(work, name);
  const build = await pdsnap(['build', '--datasets', dataset, '--sources', sources, '--store', store, '--now', NOW, '--json']);
  return { store, id: JSON.parse(String(build.stdout)).datasets[0].snapshotId };
}

describe('a --now ahead of the clock', () => {
  it('is refused by build with exit 3, naming how far ahead and the way out', async () => {
    const store = path.join(work, 'future-refused');
    const result = await pdsnap([
      'build',
      '--datasets',
      'articles',
      '--sources',
      sources,
      '--store',
      store,
      '--now',
      '2027-01-05T00:00:00Z',
    ]);
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toMatch(/--now 2027-01-05T00:00:00\.000Z is 43d ahead of the clock \(2026-11-23T00:00:00\.000Z\)/);
    expect(String(result.stderr)).toMatch(/--allow-future-now/);
  });

  it('is accepted within the documented skew of 5 minutes, and refused one second beyond', async () => {
    const clock = { PDSNAP_CLOCK: '2026-11-22T11:55:00Z' };
    const late = { PDSNAP_CLOCK: '2026-11-22T11:54:59Z' };
    // Independent builds (stores of their own), here and below.
    const [ok, refused] = await Promise.all([
      pdsnap(['build', '--datasets', 'articles', '--sources', sources, '--store', path.join(work, 'skew'), '--now', NOW], clock),
      pdsnap(['build', '--datasets', 'articles', '--sources', sources, '--store', path.join(work, 'skew2'), '--now', NOW], late),
    ]);
    expect(ok.exitCode, String(ok.stderr)).toBe(0);
    expect(refused.exitCode).toBe(3);
    expect(String(refused.stderr)).toMatch(/5m 1s ahead of the clock/);
  });

  it('needs --allow-future-now and a --store on the command line; then the dated store is built', async () => {
    const args = ['build', '--datasets', 'articles', '--sources', sources, '--now', NOW, '--allow-future-now'];
    const past = { PDSNAP_CLOCK: '2026-11-01T00:00:00Z' };
    const [noStore, built] = await Promise.all([pdsnap(args, past), pdsnap([...args, '--store', path.join(work, 'history')], past)]);
    expect(noStore.exitCode).toBe(3);
    expect(String(noStore.stderr)).toMatch(/--allow-future-now needs --store DIR on the command line/);
    expect(built.exitCode, String(built.stderr)).toBe(0);
  });

  it('refuses --allow-future-now into a bucket: servers read buckets', async () => {
    const args = [
      'build',
      '--datasets',
      'articles',
      '--sources',
      sources,
      '--now',
      NOW,
      '--allow-future-now',
      '--store',
      's3://snapshots/dated',
    ];
    const result = await pdsnap(args);
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toContain('--allow-future-now needs a folder --store, not s3://snapshots/dated');
  });

  it('treats a PDSNAP_CLOCK ahead of the host clock like a --now ahead of the clock, unless the store is a dated one of its own', async () => {
    // A rehearsal date left set: far beyond any host clock the suite will run on.
    const rehearsal = { PDSNAP_CLOCK: '2999-01-01T00:00:00Z' };
    const args = ['build', '--datasets', 'articles', '--sources', sources, '--now', NOW];
    const [refused, dated] = await Promise.all([
      pdsnap([...args, '--store', path.join(work, 'rehearsal-refused')], rehearsal),
      pdsnap([...args, '--store', path.join(work, 'rehearsal-dated'), '--allow-future-now'], rehearsal),
    ]);
    expect(refused.exitCode).toBe(3);
    expect(String(refused.stderr)).toMatch(/PDSNAP_CLOCK=2999-01-01T00:00:00\.000Z is .* ahead of this host's clock/);
    expect(String(refused.stderr)).toContain('--allow-future-now');
    expect(dated.exitCode, String(dated.stderr)).toBe(0);
  });

  it('makes validate and gate fail a current snapshot generated after their now', async () => {
    const store = path.join(work, 'from-the-future');
    const build = await pdsnap(['build', '--datasets', 'articles', '--sources', sources, '--store', store, '--now', NOW]);
    expect(build.exitCode, String(build.stderr)).toBe(0);
    const commands = ['validate', 'gate'];
    const [atBuild, ...results] = await Promise.all([
      pdsnap(['validate', '--datasets', 'articles', '--store', store, '--now', NOW]),
      ...commands.map((command) =>
        pdsnap([command, '--datasets', 'articles', '--store', store, '--now', '2026-11-21T00:00:00Z', '--json']),
      ),
    ]);
    for (const [index, command] of commands.entries()) {
      const result = results[index]!;
      expect(result.exitCode, command).toBe(2);
      const rule = JSON.parse(String(result.stdout)).datasets[0].rules.find(
        (r: { rule: string }) => r.rule === 'snapshot.generated-by-now',
      );
      expect(rule).toMatchObject({ status: 'fail', observed: 'generated 1d 12h after now' });
    }
    expect(atBuild.exitCode, String(atBuild.stdout)).toBe(0);
  });
});

describe('Smart Money whose investors are all past the quarter rule', () => {
  let oldSources: string;
  beforeAll(async () => {
    // Filings dated for a year earlier: every latest quarter end is more than 180 days old at NOW.
    oldSources = path.join(work, 'old-sources');
    const sample = await runCli(['sample', '--out', oldSources, '--now', '2025-11-22T12:00:00Z']);
    expect(sample.exitCode, String(sample.stderr)).toBe(0);
  });

  it('fails with the cause in the reason: how many investors, left out by which rule', async () => {
    const store = path.join(work, 'sm-stale');
    const result = await pdsnap(['build', '--datasets', 'smart-money', '--sources', oldSources, '--store', store, '--now', NOW, '--json']);
    expect(result.exitCode).toBe(2);
    const [report] = JSON.parse(String(result.stdout)).datasets;
    expect(report.reason).toMatch(/^no investors records were produced: \d+ investor\(s\) left out by the 180-day quarter rule/);
    expect(report.reason).toMatch(/--allow-stale publishes them/);
  });

  it('publishes them with --allow-stale, as a stale snapshot recorded in its manifest, each with a note', async () => {
    const store = path.join(work, 'sm-allow-stale');
    const args = ['build', '--datasets', 'smart-money', '--sources', oldSources, '--store', store, '--now', NOW, '--allow-stale', '--json'];
    const result = await pdsnap(args);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const [report] = JSON.parse(String(result.stdout)).datasets;
    expect(report.outcome).toBe('published');
    expect(report.records.investors).toBeGreaterThan(5);
    const kept = report.notes.filter((n: { message: string }) => /is published although .* --allow-stale$/.test(n.message));
    expect(kept).toHaveLength(report.records.investors);
    const manifest = JSON.parse(await readFile(path.join(store, 'bundles/smart-money', report.snapshotId, 'manifest.json'), 'utf8'));
    expect(manifest.allowStale).toBe(true);
  });
});

describe('the readable build report', () => {
  let dirty: string;
  beforeAll(async () => {
    // The file's sample (pdsnap sample with the same --now), copied.
    dirty = path.join(work, 'dirty-sources');
    await cp(sources, dirty, { recursive: true });
    // A rejected file whose name and content carry a terminal control sequence.
    await writeFile(path.join(dirty, 'articles/en-US', '\u001b[2Jbad.md'), 'no front matter \u001b[2J here\n');
  });

  it('counts routine value-unit notes on one line and keeps the exceptions listed; --verbose and --json list each', async () => {
    const args = (store: string) => [
      'build',
      '--datasets',
      'smart-money',
      '--sources',
      sources,
      '--store',
      path.join(work, store),
      '--now',
      NOW,
    ];
    // Three builds of the same sources, one report format each, side by side (a store each).
    const [textBuild, verboseBuild, jsonBuild] = await Promise.all([
      pdsnap(args('notes')),
      pdsnap([...args('notes-verbose'), '--verbose']),
      pdsnap([...args('notes-json'), '--json']),
    ]);
    const text = String(textBuild.stdout);
    expect(text).toMatch(
      /^ {2}\d+ filing\(s\) with values read as dollars by their filing date \(routine; --verbose or --json lists each\)$/m,
    );
    expect(text).not.toMatch(/value unit: dollars \(filing/);
    expect(text).toMatch(/was superseded by 13F-HR\/A/);
    const verbose = String(verboseBuild.stdout);
    const json = JSON.parse(String(jsonBuild.stdout));
    const perFiling = json.datasets[0].notes.filter((n: { message: string }) => n.message.startsWith('value unit: dollars (filing'));
    expect(perFiling.length).toBeGreaterThan(20);
    expect(verbose.match(/value unit: dollars \(filing/g)).toHaveLength(perFiling.length);
  });

  it('says OK with N rejected record(s), exits 0, and exits 1 under --fail-on rejected', async () => {
    const args = ['build', '--datasets', 'articles', '--sources', dirty, '--store', path.join(work, 'rejected'), '--now', NOW];
    // The two builds into one store run in turn; the clean build and the usage error beside them.
    const [[result, failOn], clean, bad] = await Promise.all([
      (async () => [await pdsnap(args), await pdsnap([...args, '--fail-on', 'rejected'])])(),
      pdsnap([
        'build',
        '--datasets',
        'articles',
        '--sources',
        sources,
        '--store',
        path.join(work, 'clean'),
        '--now',
        NOW,
        '--fail-on',
        'rejected',
      ]),
      pdsnap([...args, '--fail-on', 'warnings']),
    ]);
    expect(result!.exitCode, String(result!.stderr)).toBe(0);
    expect(String(result!.stdout).trimEnd().split('\n').at(-1)).toBe('OK with 1 rejected record(s): 1 dataset(s) built');
    expect(failOn!.exitCode).toBe(1);
    expect(clean.exitCode).toBe(0);
    expect(String(clean.stdout).trimEnd().split('\n').at(-1)).toBe('OK: 1 dataset(s) built');
    expect(bad.exitCode).toBe(3);
    expect(String(bad.stderr)).toMatch(/--fail-on: expected "failed" \(the default\) or "rejected"/);
  });

  it('escapes control characters from source files in text output; --json keeps them as JSON escapes', async () => {
    const args = (store: string) => [
      'build',
      '--datasets',
      'articles',
      '--sources',
      dirty,
      '--store',
      path.join(work, store),
      '--now',
      NOW,
    ];
    const [textBuild, jsonBuild] = await Promise.all([pdsnap(args('escape')), pdsnap([...args('escape-json'), '--json'])]);
    const text = String(textBuild.stdout);
    expect(text).not.toContain('\u001b');
    expect(text).toContain('articles/en-US/\\x1b[2Jbad.md');
    const json = JSON.parse(String(jsonBuild.stdout));
    expect(json.datasets[0].rejected[0].source).toBe('articles/en-US/\u001b[2Jbad.md');
  });

  it('writes the JSON report to --output FILE as well, whole', async () => {
    const file = path.join(work, 'build-report.json');
    const result = await pdsnap([
      'build',
      '--datasets',
      'articles',
      '--sources',
      sources,
      '--store',
      path.join(work, 'output'),
      '--now',
      NOW,
      '--output',
      file,
    ]);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const report = JSON.parse(await readFile(file, 'utf8'));
    expect(report.datasets.map((d: { dataset: string; outcome: string }) => [d.dataset, d.outcome])).toEqual([['articles', 'published']]);
    expect(String(result.stdout)).toMatch(/^OK: 1 dataset\(s\) built$/m);
  });
});

describe('a missing path is a usage error naming it (exit 3)', () => {
  it('build --sources: a missing folder, and a file', async () => {
    const file = path.join(sources, 'articles/sources.yaml');
    const [missing, notDir] = await Promise.all([
      pdsnap(['build', '--sources', '/nonexistent/pdsnap-sources', '--store', path.join(work, 'x')]),
      pdsnap(['build', '--sources', file, '--store', path.join(work, 'x')]),
    ]);
    expect(missing.exitCode).toBe(3);
    expect(String(missing.stderr)).toMatch(/--sources \/nonexistent\/pdsnap-sources does not exist/);
    expect(notDir.exitCode).toBe(3);
    expect(String(notDir.stderr)).toContain(`--sources ${file} is not a folder`);
    expect(String(notDir.stderr)).not.toMatch(/ENOTDIR/);
  });

  it('serve --store and --keys', async () => {
    const keys = path.join(work, 'keys.json');
    const created = await pdsnap(['keys', '--keys', keys, 'create', '--name', 't', '--scopes', 'articles:read']);
    expect(created.exitCode, String(created.stderr)).toBe(0);
    const [noStore, noKeys] = await Promise.all([
      pdsnap(['serve', '--port', '0', '--keys', keys, '--store', '/nonexistent/pdsnap-store']),
      pdsnap(['serve', '--port', '0', '--keys', '/nonexistent/keys.json', '--store', work]),
    ]);
    expect(noStore.exitCode).toBe(3);
    expect(String(noStore.stderr)).toMatch(/--store: the bundle store \/nonexistent\/pdsnap-store does not exist/);
    expect(noKeys.exitCode).toBe(3);
    expect(String(noKeys.stderr)).toMatch(/--keys: the API keys file \/nonexistent\/keys\.json does not exist/);
  });

  it('usage --usage-db', async () => {
    const result = await pdsnap(['usage', '--usage-db', '/nonexistent/usage.sqlite', '--keys', path.join(work, 'keys.json')]);
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toMatch(/--usage-db \/nonexistent\/usage\.sqlite does not exist/);
    expect(String(result.stdout)).toBe('');
  });
});

describe('pipes and JSON', () => {
  it('finishes quietly when stdout is closed early (pdsnap build | head -1): no EPIPE, the build still published', async () => {
    const store = path.join(work, 'epipe');
    const child = execa(
      'node',
      [CLI, 'build', '--datasets', 'articles', '--sources', sources, '--store', store, '--now', NOW, '--verbose'],
      {
        cwd: work,
        env: CLOCK,
        reject: false,
        stdout: 'pipe',
      },
    );
    // The reader goes away before the CLI has written anything.
    child.stdout!.destroy();
    const result = await child;
    expect(String(result.stderr)).not.toMatch(/EPIPE|Error|at /);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(await readFile(path.join(store, 'current/articles.json'), 'utf8')).snapshotId).toMatch(/^articles-/);
  });

  it.each([
    ['an unknown option', ['build', '--nope', '--json'], /unknown option '--nope'/],
    ['a missing store', ['list', '--store', '/nonexistent/store', '--json'], /store \/nonexistent\/store does not exist/],
    ['a bad --now', ['validate', '--now', 'yesterday', '--json'], /--now: "yesterday" is not an ISO 8601 instant/],
    ['a future --now', ['build', '--now', '2030-01-01T00:00:00Z', '--json'], /ahead of the clock/],
  ])('prints one JSON object on stdout for %s', async (_name, args, message) => {
    const result = await pdsnap(args);
    expect(result.exitCode).toBe(3);
    const parsed = JSON.parse(String(result.stdout));
    expect(parsed).toMatchObject({ ok: false, error: { kind: 'usage', exitCode: 3 } });
    expect(parsed.error.message).toMatch(message);
  });
});

describe('what users of dbt and Soda expect', () => {
  it('--version and -V print the package version', async () => {
    const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const flags = ['--version', '-V'];
    const results = await Promise.all(flags.map((flag) => pdsnap([flag])));
    for (const result of results) {
      expect(result.exitCode).toBe(0);
      expect(String(result.stdout).trim()).toBe(version);
    }
    // Without loading a single subcommand (they would cost a second of start-up); a named one loads alone.
    expect(await commandsFor(['node', 'pdsnap', '--version'])).toEqual([]);
    expect(await commandsFor(['node', 'pdsnap', '-V'])).toEqual([]);
    expect((await commandsFor(['node', 'pdsnap', 'list'])).map((command) => command.name())).toEqual(['list']);
    expect(await commandsFor(['node', 'pdsnap', '--help'])).toHaveLength(Object.keys(COMMANDS).length);
  });

  it('pdsnap help keys create shows the subcommand help', async () => {
    const result = await pdsnap(['help', 'keys', 'create']);
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toMatch(/^Usage: pdsnap keys create \[options\]/);
    expect(String(result.stdout)).toMatch(/--scopes <list>/);
  });

  it('an unknown option points at the command help', async () => {
    const result = await pdsnap(['validate', '--colour']);
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toMatch(/unknown option '--colour'\n\(pdsnap validate --help lists its options\)/);
  });

  it('speaks the user words: --scale, --config as given', async () => {
    const [scale, config] = await Promise.all([
      pdsnap(['sample', '--out', path.join(work, 'scale'), '--scale', 'small']),
      pdsnap(['validate', '--config', '/nope.yaml']),
    ]);
    expect(scale.exitCode).toBe(3);
    expect(String(scale.stderr)).toBe('pdsnap: --scale: must be a whole number of filers, e.g. 3000');
    expect(config.exitCode).toBe(3);
    expect(String(config.stderr)).toBe('pdsnap: config /nope.yaml does not exist');
  });

  it('inspect lists the sources of a snapshot in text mode', async () => {
    const { store, id } = await builtSnapshot('calendar', 'inspect');
    const result = await pdsnap(['inspect', id, '--store', store]);
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toMatch(/^source +bytes +sha256$/m);
    expect(String(result.stdout)).toMatch(/^calendar\/\S+ +\d+ +[0-9a-f]{64}$/m);
  });

  it("inspect writes out the articles' facts, the articles of each feed among them", async () => {
    const { store, id } = await builtSnapshot('articles', 'inspect-articles');
    const result = await pdsnap(['inspect', id, '--store', store]);
    expect(result.exitCode).toBe(0);
    const facts = String(result.stdout)
      .split('\n')
      .find((line) => line.startsWith('facts '));
    expect(facts).not.toContain('[object Object]');
    expect(facts).toMatch(/ feedItems=hanbit-economy:\d+,harbor-wire:\d+,sakura-markets:\d+( {2}|$)/);
  });
});

describe('paths from the environment and the config file: flag > environment > config file > default', () => {
  let folder: string;
  let config: string;
  beforeAll(async () => {
    folder = path.join(work, 'configured');
    config = path.join(folder, 'pdsnap.config.yaml');
    await mkdir(folder, { recursive: true });
    // Relative to the config file's folder, not to the working directory.
    await writeFile(config, 'paths:\n  sources: ../sources\n  store: store-from-config\n');
  });

  async function storeUsed(args: string[], env: Record<string, string>): Promise<string> {
    const result = await pdsnap(['list', '--json', ...args], env);
    if (result.exitCode === 0) return JSON.parse(String(result.stdout)).store;
    return JSON.parse(String(result.stdout)).error.message;
  }

  it('builds from the paths of a config file named by PDSNAP_CONFIG, relative to its folder', async () => {
    const build = await runCli(['build', '--datasets', 'articles', '--now', NOW], {
      cwd: REPO_ROOT,
      env: { ...CLOCK, PDSNAP_CONFIG: config },
    });
    expect(build.exitCode, String(build.stderr)).toBe(0);
    expect(String(build.stdout)).toContain(`sources ${sources}`);
    expect(String(build.stdout)).toContain(`store   ${path.join(folder, 'store-from-config')}`);
  });

  it('takes the environment over the config file, and the flag over both', async () => {
    const envStore = path.join(work, 'from-env');
    const flagStore = path.join(work, 'flag-store');
    await mkdir(flagStore, { recursive: true });
    const [fromConfig, fromEnv, fromFlag, sourcesFromEnv] = await Promise.all([
      storeUsed(['--config', config], {}),
      storeUsed(['--config', config], { PDSNAP_STORE: envStore }),
      storeUsed(['--config', config, '--store', flagStore], { PDSNAP_STORE: envStore }),
      pdsnap(['build', '--datasets', 'articles', '--now', NOW, '--store', path.join(work, 'env-build')], {
        PDSNAP_SOURCES: '/nonexistent/env-sources',
      }),
    ]);
    expect(fromConfig).toBe(path.join(folder, 'store-from-config'));
    expect(fromEnv).toBe(`store ${envStore} does not exist`);
    expect(fromFlag).toBe(flagStore);
    expect(sourcesFromEnv.exitCode).toBe(3);
    expect(String(sourcesFromEnv.stderr)).toMatch(/--sources \/nonexistent\/env-sources does not exist/);
  });

  it('refuses an unknown key under paths, naming it', async () => {
    const bad = path.join(work, 'bad-paths.yaml');
    await writeFile(bad, 'paths:\n  stores: x\n');
    const result = await pdsnap(['list', '--config', bad]);
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toMatch(/config .*bad-paths\.yaml is invalid at paths/);
  });
});

describe('colour, --quiet and --verbose', () => {
  let store: string;
  beforeAll(async () => {
    store = path.join(work, 'colour');
    const build = await pdsnap(['build', '--datasets', 'articles', '--sources', sources, '--store', store, '--now', NOW, '--quiet']);
    expect(build.exitCode, String(build.stderr)).toBe(0);
  });

  const validate = (extra: string[], env: Record<string, string> = {}) =>
    pdsnap(['validate', '--datasets', 'articles', '--store', store, '--now', NOW, ...extra], env);

  it('colours PASS/WARN/FAIL with FORCE_COLOR, never into a pipe otherwise, and not with NO_COLOR', async () => {
    const [forced, piped, noColour] = await Promise.all([
      validate([], { FORCE_COLOR: '1' }),
      validate([]),
      validate([], { NO_COLOR: '1' }),
    ]);
    expect(String(forced.stdout)).toContain('\u001b[32mPASS\u001b[39m=');
    expect(String(piped.stdout)).not.toContain('\u001b');
    expect(String(noColour.stdout)).not.toContain('\u001b');
  });

  it('validate --quiet prints only problems and the summary; --verbose adds every passing rule', async () => {
    const [quiet, late, verbose] = await Promise.all([
      validate(['--quiet']),
      validate(['--quiet', '--now', '2026-11-29T10:00:00Z']),
      validate(['--verbose']),
    ]);
    // One line: nothing warns or fails, so only the summary.
    expect(String(quiet.stdout)).toMatch(/^PASS=\d+ WARN=0 FAIL=0$/);
    expect(String(late.stdout).split('\n')).toEqual([
      expect.stringMatching(/^WARN {2}freshness\.snapshot-age: articles: .* it goes stale in 2h/),
      expect.stringMatching(/^FAIL {2}freshness\.latest-article-age: articles: latest article publishedAt .* is 7d 1h old, more than 7d/),
      expect.stringMatching(/^PASS=\d+ WARN=1 FAIL=1$/),
    ]);
    expect(String(verbose.stdout)).toMatch(/^ {2}PASS {2}schema: articles: every record matches its JSON Schema$/m);
  });

  it('every command accepts --quiet and --verbose; --quiet drops informational stderr', async () => {
    // Each command's help as the command object gives it; one run of `list --help` shows it is what the CLI prints.
    expect(Object.keys(COMMANDS)).toEqual([
      'fetch',
      'build',
      'validate',
      'gate',
      'list',
      'inspect',
      'promote',
      'rollback',
      'diff',
      'history',
      'gc',
      'sync',
      'sample',
      'serve',
      'keys',
      'usage',
    ]);
    for (const [name, load] of Object.entries(COMMANDS)) {
      const help = (await load()).helpInformation();
      expect(help, name).toMatch(/--quiet/);
      expect(help, name).toMatch(/--verbose/);
    }
    const keys = path.join(work, 'quiet-keys.json');
    // Two keys into one file, in turn, and the help.
    const [help, [loud, quiet]] = await Promise.all([
      pdsnap(['list', '--help']),
      (async () => [
        await pdsnap(['keys', '--keys', keys, 'create', '--name', 'a', '--scopes', 'articles:read']),
        await pdsnap(['keys', '--keys', keys, 'create', '--name', 'b', '--scopes', 'articles:read', '--quiet']),
      ])(),
    ]);
    const listHelp = String(help.stdout);
    expect(listHelp).toMatch(/^Usage: pdsnap list /);
    // The same option lines as the command object's: only the usage line gains the program's name.
    expect(listHelp.split('\n').slice(1)).toEqual((await COMMANDS.list!()).helpInformation().trimEnd().split('\n').slice(1));
    expect(String(loud!.stderr)).toMatch(/store this API key now/);
    expect(quiet!.exitCode, String(quiet.stderr)).toBe(0);
    expect(String(quiet!.stderr)).toBe('');
    expect(String(quiet!.stdout)).toMatch(/^key: /m);
  });
});
