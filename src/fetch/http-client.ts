import { type Dispatcher, EnvHttpProxyAgent, request } from 'undici';
import { guardedConnector, hostKey, type TrustedHosts } from './address-guard.js';

/** How long a download may take, in ms (docs/sources-fetch.md, Every byte safe to keep). */
export interface HttpTimeouts {
  /** To open the connection (TCP and TLS). */
  connectMs: number;
  /** Without a byte: before the answer's headers, and between two chunks of its body. */
  idleMs: number;
  /** For one attempt, redirects and the whole body included. */
  totalMs: number;
}

export interface HttpClient {
  /** One GET, no redirect followed: the caller checks each hop. */
  get(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<Dispatcher.ResponseData>;
  close(): Promise<void>;
}

/**
 * undici's EnvHttpProxyAgent: HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or their lower-case forms) are
 * honoured as CI runners behind a proxy need, and connections are kept alive between requests. Its
 * direct connections go through the address guard; a proxy, named by the operator, is trusted, and
 * resolves the names it is asked for itself (docs/sources-fetch.md, Redirects and addresses).
 */
export function createHttpClient(trusted: TrustedHosts, timeouts: HttpTimeouts, env: NodeJS.ProcessEnv = process.env): HttpClient {
  const allTrusted = new Set([...trusted, ...proxyHosts(env)]);
  const dispatcher = new EnvHttpProxyAgent({
    connect: guardedConnector(allTrusted, timeouts.connectMs),
    headersTimeout: timeouts.idleMs,
    bodyTimeout: timeouts.idleMs,
  });
  return {
    get: (url, headers, signal) => request(url, { dispatcher, method: 'GET', headers, signal }),
    close: () => dispatcher.close(),
  };
}

/** The hosts of the proxies the environment names. */
export function proxyHosts(env: NodeJS.ProcessEnv): string[] {
  return ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].flatMap((name) => {
    const value = env[name];
    if (value === undefined || value === '') return [];
    try {
      return [hostKey(new URL(value).hostname)];
    } catch {
      return [];
    }
  });
}
