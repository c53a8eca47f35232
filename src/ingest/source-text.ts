import { isUtf8 } from 'node:buffer';

/**
 * Turns the bytes of a source file into text, the one way every reader does it.
 *
 * - A UTF-8 byte-order mark is dropped; a UTF-16 one (LE or BE) is honoured, and so is UTF-16
 *   XML without one (`<?` as two-byte units), as the XML specification asks.
 * - An XML declaration naming another encoding (`encoding="windows-1252"`, common in provider
 *   exports) is honoured; in an EDGAR full submission, that of its first `<XML>` block. A
 *   windows-1252 or ISO-8859-1 label reads bytes 0x80-0x9F as windows-1252 does (’, €, “), as the
 *   Encoding Standard asks: Windows tools write those bytes under either label.
 * - Compressed or archive bytes (gzip, ZIP) are refused: they are not text, whatever the name.
 * - Invalid UTF-8 is decoded with U+FFFD in place of each bad sequence and reported as a warning
 *   naming the byte offset of the first one: one mistyped byte costs a character, not the file.
 */
export type DecodedText = { ok: true; text: string; warning?: string } | { ok: false; reason: string };

export function decodeSourceText(content: Buffer, options: { xml?: boolean; embeddedXml?: boolean } = {}): DecodedText {
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
  }
  if (options.xml || options.embeddedXml) {
    const declaration = options.xml ? XML_DECLARATION : EMBEDDED_XML_DECLARATION;
    const declared = declaration.exec(content.subarray(0, options.xml ? 200 : EMBEDDED_SEARCH_BYTES).toString('latin1'));
    const label = declared?.[1]?.toLowerCase();
    if (label && label !== 'utf-8' && label !== 'utf8' && !label.startsWith('utf-16')) {
      // An encoding Node does not know is read as UTF-8, which reports any byte that is not.
      const decoder = decoderFor(label);
      if (decoder) {
        const text = decoder.decode(content);
        return { ok: true, text: decoder.encoding === 'windows-1252' ? withWindows1252Controls(text) : text };
      }
    }
  }
  return decodeUtf8(content, 0);
}

function decoderFor(label: string) {
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

const XML_DECLARATION = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/;
/** The declaration that opens the first `<XML>` block of an EDGAR full submission (after its SGML header). */
const EMBEDDED_XML_DECLARATION = /<XML>\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/i;
const EMBEDDED_SEARCH_BYTES = 64 * 1024;

/**
 * What windows-1252 puts at 0x80-0x9F, for the characters a decoder left as C1 controls (Node 20.20
 * decodes windows-1252 as ISO-8859-1; Node 22 and 24 do not). The five bytes windows-1252 leaves
 * undefined stay the controls they are.
 */
// biome-ignore format: a table of 32 code points, 16 to a row
const WINDOWS_1252_C1 = String.fromCharCode(
  0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008d, 0x017d, 0x008f,
  0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178,
);

function withWindows1252Controls(text: string): string {
  return text.replace(/[\u0080-\u009f]/g, (control) => WINDOWS_1252_C1[control.charCodeAt(0) - 0x80]!);
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
