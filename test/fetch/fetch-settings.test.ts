import { describe, expect, it } from 'vitest';
import { addressRefusal, literalHostRefusal } from '../../src/fetch/address-guard.js';
import { FetchConfigError } from '../../src/fetch/fetch-errors.js';
import { expandHeaders } from '../../src/fetch/header-values.js';
import { proxyHosts } from '../../src/fetch/http-client.js';
import { retryAfterMs } from '../../src/fetch/rate-limit-answer.js';
import { backoffMs } from '../../src/fetch/retry-policy.js';
import { readSecSettings } from '../../src/fetch/sec-settings.js';

describe("SEC's fair-access settings", () => {
  const ua = { PDSNAP_SEC_USER_AGENT: 'Acme Research data-ops@acme.example' };

  it('takes a declared name and e-mail, 8 requests a second and www.sec.gov unless told otherwise', () => {
    expect(readSecSettings(ua)).toEqual({ userAgent: 'Acme Research data-ops@acme.example', maxRps: 8, baseUrl: 'https://www.sec.gov' });
    expect(readSecSettings({ ...ua, PDSNAP_SEC_MAX_RPS: '10', PDSNAP_SEC_URL: 'http://127.0.0.1:8080/mirror/' })).toMatchObject({
      maxRps: 10,
      baseUrl: 'http://127.0.0.1:8080/mirror',
    });
  });

  it.each([
    [{}, /PDSNAP_SEC_USER_AGENT is not set/],
    [{ PDSNAP_SEC_USER_AGENT: 'Acme Research' }, /has no contact e-mail/],
    [{ PDSNAP_SEC_USER_AGENT: 'ops@acme.example' }, /has no name beside the e-mail/],
    [{ PDSNAP_SEC_USER_AGENT: 'Acme ops@acme.example\r\nX-Forged: 1' }, /one line of text/],
    [{ ...ua, PDSNAP_SEC_MAX_RPS: '11' }, /PDSNAP_SEC_MAX_RPS must be a whole number from 1 to 10/],
    [{ ...ua, PDSNAP_SEC_MAX_RPS: '0' }, /PDSNAP_SEC_MAX_RPS must be/],
    [{ ...ua, PDSNAP_SEC_URL: 'ftp://mirror.example' }, /http:\/\/ or https:\/\//],
    [{ ...ua, PDSNAP_SEC_URL: 'https://user:secret@mirror.example' }, /without credentials/],
  ])('refuses %o before any request', (env, message) => {
    expect(() => readSecSettings(env)).toThrow(FetchConfigError);
    expect(() => readSecSettings(env)).toThrow(message);
  });
});

describe('addresses a download may not reach', () => {
  it.each([
    ['169.254.169.254', /link-local/],
    ['127.0.0.1', /loopback/],
    ['10.1.2.3', /private/],
    ['172.20.0.1', /private/],
    ['192.168.1.1', /private/],
    ['100.64.0.1', /shared/],
    ['0.0.0.0', /unspecified/],
    ['::1', /loopback/],
    ['fe80::1', /link-local/],
    ['fd00::1', /unique local/],
    ['::ffff:169.254.169.254', /link-local/],
  ])('%s is refused', (address, what) => {
    expect(addressRefusal(address)).toMatch(what);
  });

  it('lets public addresses and host names through (a name is checked on what DNS answers, at connect time)', () => {
    expect(addressRefusal('162.159.140.71')).toBeNull();
    expect(addressRefusal('2606:4700::6810:84e5')).toBeNull();
    expect(addressRefusal('www.sec.gov')).toBeNull();
  });

  it('lets an internal host through only when the configuration names it', () => {
    const trusted = new Set(['127.0.0.1']);
    expect(literalHostRefusal('127.0.0.1', trusted)).toBeNull();
    expect(literalHostRefusal('169.254.169.254', trusted)).toMatch(/169\.254\.169\.254 is a link-local address/);
    expect(literalHostRefusal('[::1]', new Set(['::1']))).toBeNull();
  });

  it('trusts the proxies the environment names', () => {
    expect(proxyHosts({ HTTPS_PROXY: 'http://10.0.0.8:3128', http_proxy: 'http://proxy.corp:8080' })).toEqual(['10.0.0.8', 'proxy.corp']);
  });
});

/** `${NAME}` as a source file writes it. */
const ref = (name: string) => `\${${name}}`;

describe('header values naming environment variables', () => {
  it('fills a variable reference from the environment', () => {
    expect(
      expandHeaders({ Authorization: `Bearer ${ref('HARBOR_WIRE_TOKEN')}`, Accept: 'application/rss+xml' }, 'x', {
        HARBOR_WIRE_TOKEN: 's3cret',
      }),
    ).toEqual({
      Authorization: 'Bearer s3cret',
      Accept: 'application/rss+xml',
    });
  });

  it('refuses a variable that is not set or empty, naming it and never its value', () => {
    expect(() =>
      expandHeaders({ Authorization: `Bearer ${ref('HARBOR_WIRE_TOKEN')}` }, 'articles/sources.yaml (harbor-wire) feed', {}),
    ).toThrow(
      'articles/sources.yaml (harbor-wire) feed: header Authorization needs the environment variable HARBOR_WIRE_TOKEN, which is not set',
    );
    expect(() => expandHeaders({ Authorization: `Bearer ${ref('HARBOR_WIRE_TOKEN')}` }, 'x', { HARBOR_WIRE_TOKEN: '' })).toThrow(/not set/);
    expect(() => expandHeaders({ Authorization: `Bearer ${ref('1BAD')}` }, 'x', {})).toThrow(/names no environment variable/);
  });
});

describe('waits between attempts', () => {
  it('backs off exponentially with jitter, never to nothing', () => {
    expect(backoffMs(1, () => 0)).toBe(250);
    expect(backoffMs(1, () => 1)).toBe(500);
    expect(backoffMs(3, () => 0)).toBe(1000);
    expect(backoffMs(20, () => 1)).toBe(30_000);
  });

  it('reads Retry-After as seconds or as a date, and never as less than a second', () => {
    expect(retryAfterMs('2', 0)).toBe(2000);
    expect(retryAfterMs('0', 0)).toBe(1000);
    expect(retryAfterMs('Sun, 22 Nov 2026 12:00:30 GMT', Date.parse('2026-11-22T12:00:00Z'))).toBe(30_000);
    expect(retryAfterMs(undefined, 0)).toBeNull();
    expect(retryAfterMs('soon', 0)).toBeNull();
  });
});
