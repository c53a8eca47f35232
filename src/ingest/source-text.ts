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
      const text = decodeLegacy(label, content);
      if (text !== undefined) return { ok: true, text };
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

/**
 * Bytes in a legacy encoding (`label`, lower case), decoded as the Encoding Standard asks, as Node
 * 22 and 24 do; undefined for a label no decoder knows. Node 20.20's decoders (ICU's) differ: they
 * read windows-1252 as ISO-8859-1, a few bytes of other single-byte encodings otherwise (below),
 * GBK with private-use characters where the Standard has €, U+3000 and others, and they lack
 * ISO-8859-16 and x-user-defined: the same source file made other text on Node 20.
 */
function decodeLegacy(label: string, content: Buffer): string | undefined {
  const decoder = decoderFor(label);
  const encoding = decoder?.encoding ?? (Object.hasOwn(FULL_SINGLE_BYTE, label) ? label : undefined);
  if (encoding === undefined) return undefined;
  // The Standard's GBK decoder is its gb18030 decoder, which Node 20's gb18030 label follows.
  if (encoding === 'gbk') return new TextDecoder('gb18030').decode(content);
  const fixes = SINGLE_BYTE_FIXES[encoding];
  const byNode = (byte: number) => decoder!.decode(Uint8Array.of(byte)).charCodeAt(0);
  // Where Node's decoder reads those bytes as the Standard does (Node 22 and 24), it does the work, faster.
  if (fixes === undefined || (decoder !== undefined && [...fixes].every(([byte, unit]) => byNode(byte) === unit))) {
    return decoder!.decode(content);
  }
  // A single-byte encoding, through a table of its 256 code units (all in the BMP), as UTF-16LE bytes.
  const table = Uint16Array.from({ length: 256 }, (_, byte) => fixes.get(byte) ?? (byte < 0x80 ? byte : byNode(byte)));
  const utf16 = Buffer.allocUnsafe(content.length * 2);
  for (let index = 0; index < content.length; index++) {
    const unit = table[content[index]!]!;
    utf16[2 * index] = unit & 0xff;
    utf16[2 * index + 1] = unit >>> 8;
  }
  return utf16.toString('utf16le');
}

const XML_DECLARATION = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/;
/** The declaration that opens the first `<XML>` block of an EDGAR full submission (after its SGML header). */
const EMBEDDED_XML_DECLARATION = /<XML>\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/i;
const EMBEDDED_SEARCH_BYTES = 64 * 1024;

/**
 * What windows-1252 puts at 0x80-0x9F (Node 20.20 reads them as ISO-8859-1's C1 controls). The five
 * bytes windows-1252 leaves undefined stay the controls they are.
 */
// biome-ignore format: a table of 32 code points, 16 to a row
const WINDOWS_1252_C1 = [
  0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008d, 0x017d, 0x008f,
  0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178,
];

/** ISO-8859-16 at 0xA0-0xFF (0x80-0x9F are the C1 controls); Node 20.20 has no decoder for it. */
// biome-ignore format: a table of 96 code points, 16 to a row
const ISO_8859_16_HIGH = [
  0x00a0, 0x0104, 0x0105, 0x0141, 0x20ac, 0x201e, 0x0160, 0x00a7, 0x0161, 0x00a9, 0x0218, 0x00ab, 0x0179, 0x00ad, 0x017a, 0x017b,
  0x00b0, 0x00b1, 0x010c, 0x0142, 0x017d, 0x201d, 0x00b6, 0x00b7, 0x017e, 0x010d, 0x0219, 0x00bb, 0x0152, 0x0153, 0x0178, 0x017c,
  0x00c0, 0x00c1, 0x00c2, 0x0102, 0x00c4, 0x0106, 0x00c6, 0x00c7, 0x00c8, 0x00c9, 0x00ca, 0x00cb, 0x00cc, 0x00cd, 0x00ce, 0x00cf,
  0x0110, 0x0143, 0x00d2, 0x00d3, 0x00d4, 0x0150, 0x00d6, 0x015a, 0x0170, 0x00d9, 0x00da, 0x00db, 0x00dc, 0x0118, 0x021a, 0x00df,
  0x00e0, 0x00e1, 0x00e2, 0x0103, 0x00e4, 0x0107, 0x00e6, 0x00e7, 0x00e8, 0x00e9, 0x00ea, 0x00eb, 0x00ec, 0x00ed, 0x00ee, 0x00ef,
  0x0111, 0x0144, 0x00f2, 0x00f3, 0x00f4, 0x0151, 0x00f6, 0x015b, 0x0171, 0x00f9, 0x00fa, 0x00fb, 0x00fc, 0x0119, 0x021b, 0x00ff,
];

/** Code points for the bytes from `first` on. */
const run = (first: number, codePoints: readonly number[]) => codePoints.map((codePoint, index) => [first + index, codePoint] as const);

/** Single-byte encodings that every byte 0x80-0xFF of is given here: those Node 20.20 has no decoder for. */
const FULL_SINGLE_BYTE: Readonly<Record<string, ReadonlyMap<number, number>>> = {
  'iso-8859-16': new Map([
    ...run(
      0x80,
      Array.from({ length: 32 }, (_, index) => 0x80 + index),
    ),
    ...run(0xa0, ISO_8859_16_HIGH),
  ]),
  'x-user-defined': new Map(
    run(
      0x80,
      Array.from({ length: 128 }, (_, index) => 0xf780 + index),
    ),
  ),
};

/**
 * Bytes of single-byte encodings that Node 20.20 decodes otherwise than the Standard (U+FFFD: a byte
 * it leaves undefined); the other bytes Node decodes alike on every version (bytes below 0x80 as
 * ASCII, in every single-byte encoding).
 */
const SINGLE_BYTE_FIXES: Readonly<Record<string, ReadonlyMap<number, number>>> = {
  ...FULL_SINGLE_BYTE,
  'windows-1252': new Map(run(0x80, WINDOWS_1252_C1)),
  // Node 20.20 swaps these three ASCII controls, as IBM's code page 866 does.
  ibm866: new Map([
    [0x1a, 0x1a],
    [0x1c, 0x1c],
    [0x7f, 0x7f],
  ]),
  'koi8-u': new Map([
    [0xae, 0x045e],
    [0xbe, 0x040e],
  ]),
  'windows-874': new Map([...run(0xdb, [0xfffd, 0xfffd, 0xfffd, 0xfffd]), ...run(0xfc, [0xfffd, 0xfffd, 0xfffd, 0xfffd])]),
  'windows-1253': new Map([[0xaa, 0xfffd]]),
  'windows-1255': new Map([[0xca, 0x05ba]]),
};

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
