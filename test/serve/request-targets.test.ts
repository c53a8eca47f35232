import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_OPERATIONS } from '../../src/serve/app.js';
import { ALL_SCOPES, bearer, get, newKey, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { rawGet, type RawAnswer } from './helpers/raw-http.js';
import { makeStore } from './helpers/test-store.js';

/**
 * Every odd spelling of a request target, over every operation of both profiles, against a real
 * server: each is either served only after full authentication, or answered with an error envelope.
 * Never data without a key.
 */
const NOW = new Date('2026-11-22T12:00:00.000Z');
const clock = new TestClock(NOW);
let server: RunningServer;
let key: string;
const targets: Array<{ operationId: string; profile: 'A' | 'B'; target: string }> = [];

beforeAll(async () => {
  const { root } = await makeStore(NOW);
  key = await newKey(root, ALL_SCOPES, 'premium');
  server = await startServer(root, clock);
  const articleSlug = (await get(server.base, '/v1/articles?limit=1', bearer(key))).body.data[0].slug as string;
  const investorSlug = (await get(server.base, '/v1/smart-money/investors?limit=1', bearer(key))).body.data[0].slug as string;
  for (const op of ALL_OPERATIONS) {
    let target = op.path.replace(':slug', op.dataset === 'articles' ? articleSlug : investorSlug);
    if (op.operationId === 'listEconomicCalendar') target += '?from=2026-11-01&to=2026-12-31';
    targets.push({ operationId: op.operationId, profile: op.profile, target });
  }
});
afterAll(() => server.close());

type Expectation = 'served-after-auth' | 'not-found' | 'refused';

/** How each spelling is answered, and why. */
const VARIANTS: Array<{ name: string; expect: Expectation; spell: (target: string, prefix: string) => string }> = [
  // The router decodes percent-escapes of unreserved characters: the same route, the same checks.
  { name: 'a percent-encoded letter in the prefix', expect: 'served-after-auth', spell: (t, p) => t.replace(p, p.replace('v', '%76')) },
  { name: 'a percent-encoded digit in the prefix', expect: 'served-after-auth', spell: (t, p) => t.replace(p, p.replace('1', '%31')) },
  {
    name: 'a percent-encoded letter after the prefix',
    expect: 'served-after-auth',
    spell: (t, p) => `${t.slice(0, p.length + 1)}%${t.charCodeAt(p.length + 1).toString(16)}${t.slice(p.length + 2)}`,
  },
  // Absolute form names the same path: the same route, the same checks.
  { name: 'absolute form', expect: 'served-after-auth', spell: (t) => `http://api.example.test${t}` },
  // Anything else is another path that no route has: an error in an envelope, with or without a key,
  // and with a key 404 not_found (a trailing slash too, though the router matches `/articles/` to
  // `/articles/:slug` with an empty slug).
  { name: 'an encoded slash', expect: 'not-found', spell: (t, p) => t.replace(`${p}/`, `${p}%2F`) },
  { name: 'a dot segment', expect: 'not-found', spell: (t, p) => t.replace(`${p}/`, `${p}/./`) },
  { name: 'a dot-dot segment', expect: 'not-found', spell: (t, p) => t.replace(`${p}/`, `${p}/x/../`) },
  { name: 'a double slash', expect: 'not-found', spell: (t, p) => t.replace(`${p}/`, `${p}//`) },
  { name: 'upper case', expect: 'not-found', spell: (t, p) => t.replace(p, p.toUpperCase()) },
  { name: 'a trailing slash', expect: 'not-found', spell: (t) => t.replace(/(\?|$)/, '/$1') },
  // After a slug it is part of the slug, which is then malformed: 400.
  { name: 'a ;parameter', expect: 'refused', spell: (t) => t.replace(/(\?|$)/, ';jsessionid=1$1') },
];

function expectEnvelope(answer: RawAnswer) {
  expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
  const body = JSON.parse(answer.body);
  expect(Object.keys(body)).toEqual(['error']);
  expect(typeof body.error.code).toBe('string');
  if ('requestId' in body.error) expect(body.error.requestId).toBe(answer.headers['x-request-id']);
}

async function send(target: string, headerLines: string[] = []): Promise<RawAnswer> {
  clock.advance(61_000); // a fresh rate window and failed-authentication window for every request
  return rawGet(server.base, target, headerLines);
}

describe('request targets', () => {
  it('covers every operation of both profiles with at least 40 spellings', () => {
    expect(new Set(targets.map((t) => t.operationId)).size).toBe(10);
    expect(targets.length * (VARIANTS.length + 1)).toBeGreaterThanOrEqual(40);
  });

  it('serves each operation as written only with a key', async () => {
    for (const { target, operationId } of targets) {
      const anonymous = await send(target);
      expect(anonymous.status, `${operationId} ${target}`).toBe(401);
      expectEnvelope(anonymous);
      expect((await send(target, [`Authorization: Bearer ${key}`])).status, target).toBe(200);
    }
  });

  for (const variant of VARIANTS) {
    it(`${variant.name}: ${variant.expect === 'served-after-auth' ? 'the same operation, only after authentication' : 'an error envelope, never data'}`, async () => {
      for (const { target, profile } of targets) {
        const spelled = variant.spell(target, profile === 'A' ? '/v1' : '/api/v1');
        expect(spelled, 'the spelling changed the target').not.toBe(target);
        const anonymous = await send(spelled);
        expect([400, 401, 404], `${spelled} without a key`).toContain(anonymous.status);
        expectEnvelope(anonymous);
        const keyed = await send(spelled, [`Authorization: Bearer ${key}`]);
        if (variant.expect === 'served-after-auth') {
          expect(anonymous.status, spelled).toBe(401);
          expect(keyed.status, `${spelled} with a key`).toBe(200);
        } else if (variant.expect === 'not-found') {
          expect(keyed.status, `${spelled} with a key`).toBe(404);
          expectEnvelope(keyed);
          expect(JSON.parse(keyed.body).error.code, `${spelled} with a key`).toBe('not_found');
        } else {
          expect([400, 404], `${spelled} with a key`).toContain(keyed.status);
          expectEnvelope(keyed);
        }
      }
    });
  }

  /** Every spelling of every operation's target is refused with 400 and `message`, with a key or without. */
  async function expectRefused(spellings: (target: string) => string[], message: string): Promise<void> {
    for (const { target, profile } of targets) {
      for (const spelled of spellings(target)) {
        for (const headerLines of [[], [`Authorization: Bearer ${key}`]]) {
          const answer = await send(spelled, headerLines);
          expect(answer.status, spelled).toBe(400);
          expectEnvelope(answer);
          expect(JSON.parse(answer.body).error, spelled).toMatchObject({
            code: profile === 'A' ? 'invalid_request' : 'invalid_params',
            message,
          });
        }
      }
    }
  }

  it('refuses a fragment (#), which the router would take for the start of the query, with 400', async () => {
    await expectRefused(
      (target) => [`${target}#`, `${target}#x`, `${target}${target.includes('?') ? '&' : '?'}limit=1#x`],
      'the request target must not contain a fragment (#)',
    );
  });

  it('refuses user information in an absolute-form target with 400, even with a valid key', async () => {
    await expectRefused(
      (target) => [`http://user:pw@api.example.test${target}`, `http://@api.example.test${target}`],
      'the request target must not contain user information (user@)',
    );
  });

  it('answers the asterisk form with a 404 envelope', async () => {
    for (const method of ['OPTIONS', 'GET']) {
      const answer = await rawGet(server.base, '*', [], method);
      expect(answer.status).toBe(404);
      expectEnvelope(answer);
    }
  });
});
