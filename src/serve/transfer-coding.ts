/**
 * True when a request applies a transfer coding other than chunked, the only one this server
 * decodes: Node's parser takes off the final chunked framing and would leave any other coding
 * (`gzip, chunked`) on the body unnoticed. RFC 9112 section 6.1 answers that with 501. Read from
 * the raw list, since repeated Transfer-Encoding lines form one list.
 */
export function hasUnknownTransferCoding(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== TRANSFER_ENCODING.length || name.toLowerCase() !== TRANSFER_ENCODING) continue;
    for (const coding of rawHeaders[i + 1]!.split(',')) {
      const normalized = coding.trim().toLowerCase();
      // Empty list elements are allowed (RFC 9110 section 5.6.1).
      if (normalized !== '' && normalized !== 'chunked') return true;
    }
  }
  return false;
}

const TRANSFER_ENCODING = 'transfer-encoding';
