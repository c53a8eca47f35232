import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createKey } from '../../../src/serve/access/key-store.js';
import type { Profile, Scope, TierName } from '../../../src/serve/access/index.js';
import { buildServer, type ServerOptions } from '../../../src/serve/app.js';

export const DOCS = 'https://docs.example.test/api';
export const SECRET = 'test-cursor-secret-0123456789abcdef0123456789';

/** A clock the tests move by hand: limits, freshness and futureDays all read it. */
export class TestClock {
  constructor(public current: Date) {}
  now = (): Date => new Date(this.current.getTime());
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
  set(iso: string): void {
    this.current = new Date(iso);
  }
}

export interface RunningServer {
  app: FastifyInstance;
  base: string;
  keysFile: string;
  usageDbFile: string;
  close(): Promise<void>;
}

/** A real server on 127.0.0.1 and an ephemeral port, logs off, polling off unless asked (tests reload). */
export async function startServer(
  root: string,
  clock: TestClock,
  profileRoutes?: Partial<Record<Profile, (scope: FastifyInstance) => void>>,
  reloadIntervalMs = 0,
  extra: Pick<ServerOptions, 'publicUrl' | 'corsOrigins' | 'publicRatePerSecond' | 'monotonicMs'> = {},
): Promise<RunningServer> {
  const keysFile = path.join(root, 'keys.json');
  const usageDbFile = path.join(root, 'usage.sqlite');
  const app = await buildServer({
    storeDir: path.join(root, 'snapshots'),
    keysFile,
    usageDbFile,
    docsUrl: DOCS,
    cursorSecret: SECRET,
    now: clock.now,
    logger: false,
    reloadIntervalMs,
    ...(profileRoutes ? { profileRoutes } : {}),
    ...extra,
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base: address, keysFile, usageDbFile, close: () => app.close() };
}

/** A key made the way `pdsnap keys create` makes it; returns the secret. */
export async function newKey(root: string, scopes: Scope[], tier: TierName = 'member', name = 'test key'): Promise<string> {
  const { secret } = await createKey(path.join(root, 'keys.json'), { name, scopes, tier }, new Date('2026-11-01T00:00:00.000Z'));
  return secret;
}

export const ALL_SCOPES: Scope[] = ['articles:read', 'calendar:read', 'smart-money:read'];

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export async function get(base: string, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${base}${url}`, { headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
