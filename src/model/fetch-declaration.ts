import { z } from 'zod';

/**
 * How a source file says where `pdsnap fetch` gets it (a feed in articles/sources.yaml, a provider
 * export's sidecar): an http(s) address, and request headers whose values may name environment
 * variables (`Bearer ${HARBOR_WIRE_TOKEN}`), so that a secret is never written into a source file.
 */

/** Credentials in an address would be written into reports and the ledger: they belong in a header. */
export const FetchUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// address' }).refine((value) => {
  const url = new URL(value);
  return url.username === '' && url.password === '';
}, 'must not carry a user name or password: put credentials in headers, naming an environment variable');

/** Headers pdsnap sets itself on every request, or that belong to the connection, not to a source. */
const RESERVED_HEADERS = new Set([
  'accept-encoding',
  'connection',
  'content-length',
  'host',
  'if-modified-since',
  'if-none-match',
  'proxy-authorization',
  'transfer-encoding',
]);

/** A header value: no line breaks; `${NAME}` is replaced by the environment variable NAME when fetching. */
export const FetchHeaders = z
  .record(z.string(), z.string().regex(/^[^\r\n\0]*$/, 'must be one line of text'))
  .superRefine((headers, ctx) => {
    // Checked here rather than as the record's key schema, whose failure names no reason.
    for (const name of Object.keys(headers)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
        ctx.addIssue({ code: 'custom', path: [name], message: 'is not an HTTP header name' });
      else if (RESERVED_HEADERS.has(name.toLowerCase())) ctx.addIssue({ code: 'custom', path: [name], message: 'is set by pdsnap itself' });
    }
  });
