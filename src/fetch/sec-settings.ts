import { wholeNumberFromEnv } from '../lib/env-number.js';
import { FetchConfigError } from './fetch-errors.js';

/**
 * What pdsnap needs to ask SEC EDGAR for anything, from the environment (docs/sources-fetch.md):
 * who asks (SEC's fair-access policy wants every automated client to declare a name and a contact
 * e-mail in its User-Agent), how fast (at most 10 requests a second; 8 unless told otherwise), and
 * where (a company mirror or a test server instead of www.sec.gov, under the same limits).
 */
export interface SecSettings {
  userAgent: string;
  maxRps: number;
  /** Without a trailing slash: `https://www.sec.gov`. */
  baseUrl: string;
}

export const SEC_USER_AGENT_ENV = 'PDSNAP_SEC_USER_AGENT';
export const SEC_MAX_RPS_ENV = 'PDSNAP_SEC_MAX_RPS';
export const SEC_URL_ENV = 'PDSNAP_SEC_URL';

export const DEFAULT_SEC_URL = 'https://www.sec.gov';
/** SEC allows 10; 8 leaves room for another tool of the same organisation. */
export const DEFAULT_SEC_MAX_RPS = 8;
export const SEC_MAX_RPS_CEILING = 10;

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
const EXAMPLE = `${SEC_USER_AGENT_ENV}="Acme Research data-ops@acme.example"`;

export function readSecSettings(env: NodeJS.ProcessEnv): SecSettings {
  return { userAgent: declaredUserAgent(env[SEC_USER_AGENT_ENV]), maxRps: maxRps(env), baseUrl: secBaseUrl(env[SEC_URL_ENV]) };
}

/** A name and a contact e-mail, on one line: what SEC asks of every automated client. */
function declaredUserAgent(raw: string | undefined): string {
  const value = raw?.trim() ?? '';
  if (value === '') {
    throw new FetchConfigError(
      `${SEC_USER_AGENT_ENV} is not set: SEC asks every automated client to declare a name and a contact e-mail (${EXAMPLE})`,
    );
  }
  // A header value is one line of visible text: a line break would forge headers.
  if (/[\0-\x1f\x7f]/.test(value)) throw new FetchConfigError(`${SEC_USER_AGENT_ENV} must be one line of text without control characters`);
  const email = EMAIL.exec(value);
  if (email === null)
    throw new FetchConfigError(`${SEC_USER_AGENT_ENV} has no contact e-mail: SEC asks for a name and an e-mail (${EXAMPLE})`);
  const name = value.replace(email[0], '');
  if (!/\p{L}/u.test(name))
    throw new FetchConfigError(`${SEC_USER_AGENT_ENV} has no name beside the e-mail: SEC asks for both (${EXAMPLE})`);
  return value;
}

function maxRps(env: NodeJS.ProcessEnv): number {
  try {
    return (
      wholeNumberFromEnv(
        env,
        SEC_MAX_RPS_ENV,
        `a whole number from 1 to ${SEC_MAX_RPS_CEILING} (SEC allows at most ${SEC_MAX_RPS_CEILING} requests a second)`,
        (value) => value >= 1 && value <= SEC_MAX_RPS_CEILING,
      ) ?? DEFAULT_SEC_MAX_RPS
    );
  } catch (error) {
    throw new FetchConfigError((error as Error).message);
  }
}

function secBaseUrl(raw: string | undefined): string {
  const value = raw === undefined || raw.trim() === '' ? DEFAULT_SEC_URL : raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new FetchConfigError(`${SEC_URL_ENV}="${value}" is not an address (expected e.g. ${DEFAULT_SEC_URL})`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new FetchConfigError(`${SEC_URL_ENV} must be an http:// or https:// address`);
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new FetchConfigError(`${SEC_URL_ENV} must be a plain address, without credentials, query or fragment`);
  }
  return url.href.replace(/\/+$/, '');
}
