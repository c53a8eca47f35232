import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_OPERATIONS } from '../../src/serve/app.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { get, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { rawGet } from './helpers/raw-http.js';
import { makeStore } from './helpers/test-store.js';

/**
 * The reference page in a real browser: Debian's Chromium (`.ci/run` installs it), driven by
 * playwright-core. Screenshots go to .tmp/artifacts (ignored by git), kept as the test's artifact.
 */
const NOW = new Date('2026-11-22T12:00:00.000Z');
const ARTIFACTS = path.join(REPO_ROOT, '.tmp/artifacts');
let server: RunningServer;
let browser: BrowserContext;
let profileDir: string;

beforeAll(async () => {
  const { root } = await makeStore(NOW, ['articles']);
  server = await startServer(root, new TestClock(NOW));
  await mkdir(ARTIFACTS, { recursive: true });
  profileDir = await mkdtemp(path.join(tmpdir(), 'pdsnap-chromium-'));
  browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
});

describe('/docs', () => {
  for (const profile of ['A', 'B'] as const) {
    it(`renders every Profile ${profile} operation from the server's own description, loading nothing from elsewhere`, async () => {
      const page = await browser.newPage();
      const elsewhere: string[] = [];
      const failures: string[] = [];
      page.on('request', (request) => {
        const url = request.url();
        if (!url.startsWith(`${server.base}/`) && !url.startsWith('blob:') && !url.startsWith('data:')) elsewhere.push(url);
      });
      page.on('console', (message) => {
        if (message.type() === 'error') failures.push(message.text());
      });
      page.on('pageerror', (error) => failures.push(error.message));
      try {
        await page.goto(`${server.base}/docs?profile=${profile.toLowerCase()}`);
        await page.waitForSelector(`main[data-state="ready"][data-profile="profile-${profile.toLowerCase()}"]`, { timeout: 45_000 });
        // Both profiles are listed on the page, the shown one marked current.
        expect(await page.locator('nav a').allTextContents()).toEqual([
          expect.stringContaining('Profile A (/v1)'),
          expect.stringContaining('Profile B (/api/v1)'),
        ]);
        expect(await page.locator('nav a[aria-current="page"]').getAttribute('id')).toBe(`profile-${profile.toLowerCase()}`);
        for (const op of ALL_OPERATIONS.filter((o) => o.profile === profile)) {
          const section = page.locator(`[data-section-id$="operation/${op.operationId}"]`).first();
          await expect.poll(() => section.count(), { message: op.operationId }).toBeGreaterThan(0);
          expect(await section.textContent(), op.operationId).toContain(op.summary);
        }
        // Operations of the other profile are not on this page.
        const other = ALL_OPERATIONS.find((o) => o.profile !== profile)!;
        expect(await page.locator(`[data-section-id$="operation/${other.operationId}"]`).count()).toBe(0);
        const file = path.join(ARTIFACTS, `docs-profile-${profile.toLowerCase()}.png`);
        await page.screenshot({ path: file, fullPage: false });
        expect((await stat(file)).size).toBeGreaterThan(10_000);
        expect(elsewhere).toEqual([]);
        expect(failures).toEqual([]);
      } finally {
        await page.close();
      }
    });
  }

  it('is served without a key, under a policy that allows this server only', async () => {
    const page = await rawGet(server.base, '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'; script-src 'self'");
    expect(page.headers['x-request-id']).toMatch(/^req_/);
    const script = await fetch(`${server.base}/docs/redoc.standalone.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // Redoc's one reference to a CDN (Redocly's logo) is replaced by an empty image of the page's own.
    const text = await script.text();
    expect(text).toContain('Redoc');
    expect(text).not.toContain('cdn.redoc.ly');
    expect((await get(server.base, '/v1/openapi.json')).status).toBe(200);
  });

  it('opens nothing but its three paths', async () => {
    for (const target of [
      '/docs/',
      '/docs/../v1/articles',
      '/docs/%2e%2e/v1/articles',
      '/docs/package.json',
      '/docs/redoc.standalone.js.map',
      '/docs/docs.js/../../v1/articles',
    ]) {
      const answer = await rawGet(server.base, target);
      expect([401, 404], target).toContain(answer.status);
      expect(JSON.parse(answer.body).error.code, target).toMatch(/not_found|invalid_api_key/);
    }
  });
});
