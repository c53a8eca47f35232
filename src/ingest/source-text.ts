import { isUtf8 } from 'node:buffer';

/**
 * Turns the bytes of a source file into text, the one way every reader does it.
 *
 * - A UTF-8 byte-order mark is dropped; a UTF-16 one (LE or BE) is honoured, and so is UTF-16
 *   XML without one (`<?` as two-byte units), as the XML specification asks.
 * - An XML declaration naming another encoding (`encoding="windows-1252"`, common in provider
 *   exports) is honoured.
 * - Compressed or archive bytes (gzip, ZIP) are refused: they are not text, whatever the name.
 * - Invalid UTF-8 is decoded with U+FFFD in place of each bad sequence and reported as a warning
 *   naming the byte offset of the first one: one mistyped byte costs a character, not the file.
 */
export type DecodedText = { ok: true; text: string; warning?: string } | { ok: false; reason: string };

export function decodeSourceText(content: Buffer, options: { xml?: boolean } = {}): DecodedText {
  if (content[0] === 0x1f && content[1] === 0x8b) return { ok: false, reason: 'gzip-compressed data, not text: decompress the file first' };
  if (content[0] === 0x50 && content[1] === 0x4b && content[2] === 0x03 && content[3] === 0x04) {
    return { ok: false, reason: 'a ZIP archive, not text' };
  }
  if (content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf) return decodeUtf8(content.subarray(3), 3);
  if (content[0] === 0xff && content[1] === 0xfe) return { ok: true, text: new TextDecoder('utf-16le').decode(content.subarray(2)) };
  if (content[0] === 0xfe && content[1] === 0xff) return { ok: true, text: new TextDecoder('utf-16be').decode(content.subarray(2)) };
  if (options.xml) {
    if (content[0] === 0x3c && content[1] === 0x00 && content[2] === 0x3f && content[3] === 0x00) {
      return { ok: true, text: new TextDecoder('utf-16le').decode(content) };
    }
    if (content[0] === 0x00 && content[1] === 0x3c && content[2] === 0x00 && content[3] === 0x3f) {
      return { ok: true, text: new TextDecoder('utf-16be').decode(content) };
    }
    const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(content.subarray(0, 200).toString('latin1'));
    const label = declared?.[1]?.toLowerCase();
    if (label && label !== 'utf-8' && label !== 'utf8' && !label.startsWith('utf-16')) {
      try {
        return { ok: true, text: new TextDecoder(label).decode(content) };
      } catch {
        // An encoding Node does not know: read it as UTF-8, which reports any byte that is not.
      }
    }
  }
  return decodeUtf8(content, 0);
}

function decodeUtf8(bytes: Buffer, skipped: number): DecodedText {
  const text = bytes.toString('utf8');
  if (isUtf8(bytes)) return { ok: true, text };
  const offset = firstInvalidUtf8(bytes) + skipped;
  return { ok: true, text, warning: `invalid UTF-8 at byte offset ${offset}, read as U+FFFD` };
}

/** Offset of the first byte that does not start (or continue) a well-formed UTF-8 sequence. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index]!;
    if (lead < 0x80) {
      index++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0; // no overlong forms
      if (lead === 0xed) high = 0x9f; // no surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f; // nothing above U+10FFFF
    } else return index;
    for (let k = 1; k < length; k++) {
      const next = bytes[index + k];
      const min = k === 1 ? low : 0x80;
      const max = k === 1 ? high : 0xbf;
      if (next === undefined || next < min || next > max) return index;
    }
    index += length;
  }
  return bytes.length;
}
