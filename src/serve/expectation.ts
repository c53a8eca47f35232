import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorCode } from './api-error.js';
import { errorEnvelope } from './error-envelope.js';
import { HEADER_COUNT_MESSAGE, headerCountReached } from './header-count.js';
import { type Profile, profileNamedByPath } from './profile.js';
import { newRequestId } from './request-hooks.js';

/**
 * Answers a request whose Expect is anything but 100-continue (the http server's 'checkExpectation'
 * event), which Node would otherwise answer itself with a bare 417. It never reaches a route, so
 * the envelope and limit headers are those of the profile its path names, nothing is counted, and
 * the connection is closed since the body the client held back may still follow. A header section
 * that reached the count is refused as such (431), as on every other path: the Expect seen may not
 * be the only one sent.
 */
export function expectationFailedResponder(docsBase: string, limitHeaders: (profile: Profile) => Record<string, string>) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const requestId = newRequestId();
    const profile = profileNamedByPath(request.url ?? '');
    const code: ErrorCode = profile === 'A' ? 'invalid_request' : 'invalid_params';
    const [status, message] = headerCountReached(request.rawHeaders)
      ? [431, HEADER_COUNT_MESSAGE]
      : [417, 'the only expectation supported is Expect: 100-continue'];
    const body = JSON.stringify(errorEnvelope(profile, code, message, requestId, docsBase));
    response.shouldKeepAlive = false;
    response.writeHead(status, {
      ...limitHeaders(profile),
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-Request-Id': requestId,
      'Cache-Control': 'no-store',
      Connection: 'close',
    });
    response.end(body);
  };
}
