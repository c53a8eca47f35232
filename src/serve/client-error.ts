import type { Socket } from 'node:net';
import type { ErrorCode } from './api-error.js';
import { errorEnvelope } from './error-envelope.js';
import { MAX_HEADER_COUNT } from './header-count.js';
import { type Profile, profileNamedByPath } from './profile.js';
import { newRequestId } from './request-hooks.js';

/** Request line plus headers, as Node's HTTP parser enforces it; beyond it: 431. */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Node's parser reports one error for both of its header limits: Node 20 refuses only a header
 * section over MAX_HEADER_BYTES (and silently drops lines past the count, which request-hooks.ts
 * refuses), while Node 22 and later also refuse a request past `maxHeadersCount` themselves. The
 * error does not say which limit was hit (its byte offset is the current read's, not the request's),
 * so the answer names both.
 */
export const HEADER_OVERFLOW_MESSAGE = `the request line and headers exceed ${MAX_HEADER_BYTES / 1024} KiB, or send ${MAX_HEADER_COUNT} header fields or more`;

interface ClientError extends Error {
  code?: string;
  rawPacket?: unknown;
}

/**
 * Answers requests that Node's HTTP parser refused before Fastify saw them (headers too large,
 * malformed HTTP, a request that timed out), in the error envelope of the profile its request
 * line names (Profile A's when it cannot be read), with a request id and that profile's limit
 * headers (nothing counted), instead of a bare body.
 */
export function clientErrorResponder(
  docsBase: string,
  limitHeaders: (profile: Profile) => Record<string, string>,
  log: (error: Error, requestId: string) => void,
) {
  return (error: ClientError, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const requestId = newRequestId();
    log(error, requestId);
    const [status, reason, message] = describe(error);
    const profile = profileNamedByPath(requestTarget(error.rawPacket));
    const code: ErrorCode = profile === 'A' ? 'invalid_request' : 'invalid_params';
    const body = JSON.stringify(errorEnvelope(profile, code, message, requestId, docsBase));
    const limits = Object.entries(limitHeaders(profile))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-Id: ${requestId}\r\nCache-Control: no-store\r\n${limits}Connection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}

function describe(error: ClientError): [number, string, string] {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return [431, 'Request Header Fields Too Large', HEADER_OVERFLOW_MESSAGE];
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Request Timeout', 'the request was not completed in time'];
  return [400, 'Bad Request', 'the request is not valid HTTP'];
}

/** The target of the request line the parser saw, or '' when there is none to read. */
function requestTarget(packet: unknown): string {
  if (!Buffer.isBuffer(packet)) return '';
  const line = packet.subarray(0, Math.min(packet.length, 4096)).toString('latin1').split('\r\n', 1)[0] ?? '';
  return line.split(' ')[1] ?? '';
}
