import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { forEachTsvLine, type TsvLine } from '../../src/ingest/filings/tsv-rows.js';
import { parseFullSubmission } from '../../src/ingest/filings/full-submission.js';
import { type JsonTextError, parseJsonText } from '../../src/ingest/json-text.js';
import { LineCounter } from '../../src/ingest/line-index.js';
import { listSourceFiles, loadSource, UnreadableSource } from '../../src/ingest/source-files.js';
import { MAX_FOLDER_DEPTH, MAX_XML_ATTRIBUTES, MAX_XML_DEPTH } from '../../src/ingest/source-limits.js';
import { decodeSourceText } from '../../src/ingest/source-text.js';
import { parseYamlText, YamlTextError } from '../../src/ingest/yaml-text.js';
import { readXml } from '../../src/ingest/xml-reader.js';

/** The shared readers every source goes through, on the inputs that make them earn their keep. */

describe('readXml', () => {
  const fail = (text: string) => {
    const read = readXml(text);
    if (read.ok) throw new Error('expected a refusal');
    return { line: read.line, reason: read.reason };
  };

  it('refuses an entity declaration in the DTD, outside it, and a parameter-entity reference, naming the line', () => {
    expect(fail('<?xml version="1.0"?>\n<!DOCTYPE r [\n<!ENTITY a "b">\n]>\n<r>&a;</r>')).toEqual({
      line: 3,
      reason: 'entity declarations are not allowed',
    });
    expect(fail('<r>\n<!ENTITY a "b">\n</r>')).toEqual({ line: 2, reason: 'entity declarations are not allowed' });
    expect(fail('<!DOCTYPE r [ %ext; ]>\n<r/>')).toEqual({ line: 1, reason: 'parameter entity references are not allowed' });
  });

  it('refuses a DOCTYPE after the root element, where the parser would otherwise read it', () => {
    expect(fail('<r>\n<!DOCTYPE r [<!ELEMENT r ANY>]>\n</r>')).toEqual({
      line: 2,
      reason: 'a DOCTYPE may only come once, before the root element',
    });
  });

  it('ignores a bare DOCTYPE, and declarations inside comments, CDATA or quoted ids, keeping line numbers true', () => {
    const read = readXml(
      '\n\n<?xml version="1.0"?>\n<!DOCTYPE r SYSTEM "x.dtd" [\n<!-- <!ENTITY no "x"> -->\n<!ELEMENT r ANY>\n]>\n<r><![CDATA[<!ENTITY fine "x">]]><a>1</a></r>',
    );
    expect(read.ok && read.root.r).toEqual({ '#text': '<!ENTITY fine "x">', a: '1' });
    const broken = readXml('\n\n<?xml version="1.0"?>\n<!DOCTYPE r>\n<r>\n<a></b>\n</r>');
    expect(broken.ok || broken.line).toBe(6);
  });

  it('refuses a NUL character, and every other character XML does not allow, naming it', () => {
    expect(fail('<r>\n\u0000</r>')).toEqual({ line: 2, reason: 'a NUL character, which XML does not allow' });
    expect(fail('<r>\n\n\u000B</r>')).toEqual({ line: 3, reason: 'the character U+000B, which XML does not allow' });
    expect(fail('<r>\uFFFE</r>')).toEqual({ line: 1, reason: 'the character U+FFFE, which XML does not allow' });
    expect(fail('<r>\uD800</r>')).toEqual({ line: 1, reason: 'the character U+D800, which XML does not allow' });
    expect(fail('<r>\uDC00</r>')).toEqual({ line: 1, reason: 'the character U+DC00, which XML does not allow' });
    // Tab, LF, CR and a surrogate pair are characters XML allows.
    expect(readXml('<r>a\tb\r\n\u{1F600}</r>')).toEqual({ ok: true, root: { r: 'a\tb\n\u{1F600}' } });
  });

  it('is strict where XML is: text after the root, "]]>" in text, "<" in an attribute, a broken declaration, "--" in a comment', () => {
    expect(fail('<r/>x').reason).toBe('text data outside of root node');
    expect(fail('<r>a]]>b</r>').reason).toBe('the string "]]>" is disallowed in char data');
    expect(fail('<r a="<"/>').reason).toBe('disallowed character');
    expect(fail('<?xml version="1.0" enc?><r/>').reason).toBe('XML declaration is incomplete');
    expect(fail('<r>&#0;</r>').reason).toBe('malformed character entity');
    expect(fail('<r>\n<!-- a -- b -->\n</r>')).toEqual({
      line: 2,
      reason: 'a comment holding "--" (XML allows it only in the closing "-->")',
    });
    expect(fail('<r>\n<a>\n</r>')).toEqual({ line: 3, reason: 'an end tag where </a> was expected' });
    expect(fail('Service Unavailable\n<r/>')).toEqual({ line: 1, reason: 'text before the root element' });
    expect(fail(' \n ')).toEqual({ line: 2, reason: 'the document is empty' });
  });

  it('reads XML 1.0 rules whatever the declaration says: 1.1 lets no control character in', () => {
    expect(fail('<?xml version="1.1"?>\n<r>&#1;</r>')).toEqual({ line: 2, reason: 'malformed character entity' });
  });

  it('names an "&" that starts no reference at its own line, not where the parser next finds a ";"', () => {
    const feed = '<rss>\n<link>https://e.example/?a=1&b=2</link>\n<t>x</t>\n<u>&amp;</u>\n</rss>';
    expect(fail(feed)).toEqual({ line: 2, reason: 'an "&" that starts no entity or character reference (write it as &amp;)' });
    expect(fail('<r>\n\n<l>a & b</l>\n<m/>\n</r>').line).toBe(3);
    // In CDATA an "&" is text.
    expect(readXml('<r><![CDATA[a & b]]></r>')).toEqual({ ok: true, root: { r: 'a & b' } });
  });

  it('keeps an undefined entity as written in text, attributes and raw elements alike', () => {
    const read = readXml('<r a="x&nbsp;y&#33;"><t>a&nbsp;b&T;</t><d>&nbsp;<b>c</b></d></r>', { attributes: true, rawElements: ['d'] });
    expect(read.ok && read.root.r).toEqual({ '@_a': 'x&nbsp;y!', t: 'a&nbsp;b&T;', d: '&nbsp;<b>c</b>' });
  });

  it('names a cut-off document at its end, with the element left open', () => {
    expect(fail('<informationTable>\n<infoTable>\n<value>12')).toEqual({ line: 3, reason: 'the document ends before <value> is closed' });
  });

  it('decodes character references, keeps an entity XML does not define as written, and joins CDATA with the text around it', () => {
    const read = readXml('<r><t>North West &#8211; A&#x41;</t><u>a&nbsp;b &amp; c</u><v> x <![CDATA[ <y> ]]> </v></r>');
    expect(read.ok && read.root.r).toEqual({ t: 'North West \u2013 AA', u: 'a&nbsp;b & c', v: 'x  <y>' });
  });

  it("trims an element's text once, at its edges: a comment inside it keeps the spaces around it", () => {
    const read = readXml('<r><n>COCA COLA <!-- fixed -->CO</n><m>\n  APPLE <?pi x?> INC\n</m></r>');
    expect(read.ok && read.root.r).toEqual({ n: 'COCA COLA CO', m: 'APPLE  INC' });
  });

  it('refuses an entity XML does not define when asked to, as a document that is not well-formed', () => {
    expect(readXml('<r><t>S&amp;P&nbsp;INC</t></r>', { undefinedEntities: 'refuse' })).toMatchObject({
      ok: false,
      kind: 'syntax',
      line: 1,
      reason: 'the entity &nbsp; is not defined in XML (only &amp; &lt; &gt; &quot; &apos; and character references are)',
    });
  });

  it('reads siblings of one name as an array, attributes as @_name by local name, and mixed text as #text', () => {
    const read = readXml('<p:r xmlns:p="urn:x" p:id=" 7 "><a>1</a>t<a>2</a><b/><p:c k="v"/></p:r>', {
      attributes: true,
      arrays: new Set(['b']),
      removeNamespacePrefix: true,
    });
    expect(read.ok && read.root.r).toEqual({ a: ['1', '2'], '#text': 't', b: [''], c: { '@_k': 'v' }, '@_id': '7' });
  });

  it('keeps the content of a raw element as written, nested markup and CDATA included', () => {
    const read = readXml('<r><d/><d k="1"> <p>x &amp; <![CDATA[y</d>]]></p><!-- </d> --> </d ><e>&lt;</e></r>', {
      rawElements: ['d'],
      attributes: true,
    });
    expect(read.ok && read.root.r).toEqual({ d: ['', { '#text': ' <p>x &amp; <![CDATA[y</d>]]></p><!-- </d> --> ', '@_k': '1' }], e: '<' });
  });

  it('gives a raw element LF line ends, after CRLF, bare CR and astral characters', () => {
    const text = '<r>\r\n<t>\u{1F600}</t>\r<d>\r\na\rb\u{1F600}\r\n</d></r>';
    expect(readXml(text, { rawElements: ['d'] })).toEqual({ ok: true, root: { r: { t: '\u{1F600}', d: '\na\nb\u{1F600}\n' } } });
  });

  it('reads a document that starts with a bare DOCTYPE (RSS 0.91) and no XML declaration', () => {
    const feed =
      '<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd">\n<rss version="0.91"><channel><title>T</title></channel></rss>';
    expect(readXml(feed)).toEqual({ ok: true, root: { rss: { channel: { title: 'T' } } } });
  });

  it('makes an element named __proto__ a key like any other, not a prototype', () => {
    const read = readXml('<r><__proto__><polluted>yes</polluted></__proto__></r>');
    expect(read.ok && Object.keys(read.root.r as object)).toEqual(['__proto__']);
    expect(({} as { polluted?: string }).polluted).toBeUndefined();
    expect(read.ok && (read.root.r as { polluted?: string }).polluted).toBeUndefined();
  });

  it('refuses elements nested deeper than the limit at the line of the first one too deep, self-closed or not', () => {
    const ok = `${'<a>'.repeat(MAX_XML_DEPTH)}${'</a>'.repeat(MAX_XML_DEPTH)}`;
    expect(readXml(ok).ok).toBe(true);
    const reason = `elements nested deeper than ${MAX_XML_DEPTH} levels`;
    expect(fail(`<a>\n${'<a>'.repeat(MAX_XML_DEPTH)}${'</a>'.repeat(MAX_XML_DEPTH + 1)}`)).toEqual({ line: 2, reason });
    expect(fail(`${'<a>'.repeat(MAX_XML_DEPTH)}\n\n<b/>${'</a>'.repeat(MAX_XML_DEPTH)}`)).toEqual({ line: 3, reason });
  });

  it('refuses an element with more attributes than the limit, at its line', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `a${i}="${i}"`).join(' ');
    expect(readXml(`<r ${many(MAX_XML_ATTRIBUTES)}/>`).ok).toBe(true);
    expect(fail(`<r>\n<e ${many(MAX_XML_ATTRIBUTES + 1)}/></r>`)).toEqual({
      line: 2,
      reason: `an element with more than ${MAX_XML_ATTRIBUTES} attributes`,
    });
  });
});

describe('parseJsonText', () => {
  const error = (text: string) => {
    try {
      parseJsonText(text);
    } catch (thrown) {
      return { line: (thrown as JsonTextError).line, message: (thrown as JsonTextError).message };
    }
    throw new Error('expected a refusal');
  };

  it('refuses duplicate keys per object, not across objects, and escaped key spellings count as the same key', () => {
    expect(parseJsonText('[{"a": 1}, {"a": 2}]')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(error('{\n "a": {"b": 1, "c": "x\\"}"},\n "\\u0061": 2\n}')).toEqual({ line: 3, message: 'duplicate key "a" in one object' });
  });

  it('refuses numbers beyond a double and nesting beyond the limit', () => {
    expect(error(`{"n": -1e999}`).message).toBe('number -1e999 is out of range');
    expect(error(`${'['.repeat(101)}${']'.repeat(101)}`).message).toBe('nested deeper than 100 levels');
    expect(parseJsonText(`${'['.repeat(100)}${']'.repeat(100)}`)).toBeInstanceOf(Array);
  });
});

describe('line handling', () => {
  it('counts LF, CRLF and bare CR as one line break each, in increasing and decreasing order of offsets', () => {
    const text = 'a\nb\r\nc\rd';
    const lines = new LineCounter(text);
    expect([0, 2, 5, 7].map((offset) => lines.lineAt(offset))).toEqual([1, 2, 3, 4]);
    expect(lines.lineAt(0)).toBe(1);
  });

  it('splits a full submission with bare CR line ends', () => {
    const text =
      'ACCESSION NUMBER:\t0001234567-26-000001\rFILED AS OF DATE:\t20261101\r</SEC-HEADER>\r<DOCUMENT>\r<TYPE>13F-HR\r<TEXT>\r<XML>\r<a/>\r</XML>\r</TEXT>\r</DOCUMENT>\r';
    const submission = parseFullSubmission(text);
    expect(submission.header.values.accession).toBe('0001234567-26-000001');
    expect(submission.documents).toEqual([{ type: '13F-HR', fileName: '', xml: '\r<a/>\r', line: 4, xmlLine: 7 }]);
  });
});

describe('decodeSourceText', () => {
  it('honours UTF-16 byte-order marks and UTF-16 XML without one', () => {
    const text = '<?xml version="1.0"?><r>é</r>';
    expect(decodeSourceText(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]))).toEqual({ ok: true, text });
    expect(decodeSourceText(Buffer.from(text, 'utf16le'), { xml: true })).toEqual({ ok: true, text });
  });

  it('names the byte offset of the first invalid UTF-8 sequence (a BOM counted)', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('ok '), Buffer.from([0xe2, 0x82]), Buffer.from(' end')]);
    expect(decodeSourceText(bytes)).toEqual({ ok: true, text: 'ok \ufffd end', warning: 'invalid UTF-8 at byte offset 6, read as U+FFFD' });
  });

  it('reads bytes 0x80-0x9F as windows-1252 does under a windows-1252 or ISO-8859-1 label, on every Node', () => {
    for (const label of ['windows-1252', 'ISO-8859-1', 'latin1']) {
      const bytes = Buffer.concat([
        Buffer.from(`<?xml version="1.0" encoding="${label}"?><r>MOODY`),
        Buffer.from([0x92, 0x53, 0x20, 0x80, 0x20, 0x9f, 0x20, 0x81, 0x20, 0xe9]),
        Buffer.from('</r>'),
      ]);
      expect(decodeSourceText(bytes, { xml: true }), label).toEqual({
        ok: true,
        text: `<?xml version="1.0" encoding="${label}"?><r>MOODY’S € Ÿ \u0081 é</r>`,
      });
    }
  });

  it('reads every legacy encoding as the Encoding Standard does, on every Node', () => {
    // Node 20.20's decoders differ from the Standard (and from Node 22 and 24) in these bytes, and
    // lack ISO-8859-16 and x-user-defined, which it then read as UTF-8.
    const cases: [label: string, bytes: number[], text: string][] = [
      // GBK is read by the gb18030 decoder: €, an ideographic space, a vertical comma, not private-use characters.
      ['GBK', [0xa2, 0xe3, 0xa3, 0xa0, 0xa6, 0xd9, 0xc4, 0xe3, 0xba, 0xc3, 0x80], '€\u3000\ufe10你好€'],
      ['gb2312', [0xa2, 0xe3, 0xc4, 0xe3], '€你'],
      ['KOI8-U', [0xae, 0xbe, 0xc1, 0xa4], 'ўЎає'],
      ['IBM866', [0x7f, 0x80], '\u007fА'],
      ['windows-874', [0xdb, 0xfc, 0xa1], '\ufffd\ufffdก'],
      ['windows-1253', [0xaa, 0xe1], '\ufffdα'],
      ['windows-1255', [0xca, 0xe0], '\u05baא'],
      ['ISO-8859-16', [0xaa, 0xba, 0xde, 0xfe, 0xa4, 0xe9, 0x85], 'ȘșȚț€é\u0085'],
      ['x-user-defined', [0x80, 0xff], '\uf780\uf7ff'],
    ];
    for (const [label, bytes, text] of cases) {
      const declaration = `<?xml version="1.0" encoding="${label}"?>`;
      const decoded = decodeSourceText(Buffer.concat([Buffer.from(`${declaration}<r>`), Buffer.from(bytes), Buffer.from('</r>')]), {
        xml: true,
      });
      expect(decoded, label).toEqual({ ok: true, text: `${declaration}<r>${text}</r>` });
    }
  });

  it('in an EDGAR full submission, honours the declaration of the first <XML> block, after the SGML header', () => {
    const header = `<SEC-DOCUMENT>x.txt\n<SEC-HEADER>\nCOMPANY CONFORMED NAME: BANQUE PRIVEE\n</SEC-HEADER>\n<DOCUMENT>\n<TEXT>\n`;
    const bytes = Buffer.concat([
      Buffer.from(`${header}<XML>\n<?xml version="1.0" encoding="ISO-8859-1"?>\n<r>L'OR`),
      Buffer.from([0xc9]),
      Buffer.from('AL</r>\n</XML>\n'),
    ]);
    const decoded = decodeSourceText(bytes, { embeddedXml: true });
    expect(decoded).toEqual({ ok: true, text: bytes.toString('latin1') });
    expect(decoded.ok && decoded.text).toContain("L'ORÉAL");
    // Without a declaration, or declaring UTF-8, it stays UTF-8, naming the byte that is not.
    const undeclared = Buffer.from(bytes.toString('latin1').replace(' encoding="ISO-8859-1"', ''), 'latin1');
    expect(decodeSourceText(undeclared, { embeddedXml: true })).toMatchObject({
      ok: true,
      warning: expect.stringMatching(/^invalid UTF-8/),
    });
  });
});

describe('parseYamlText', () => {
  it('honours << merge keys, the written keys winning, so what an anchor carries is not lost', () => {
    const text = 'ny: &ny\n  timeZone: America/New_York\n  forecast: "0.3%"\nevents:\n  - <<: *ny\n    title: CPI\n    forecast: "0.4%"\n';
    expect(parseYamlText(text)).toEqual({
      ny: { timeZone: 'America/New_York', forecast: '0.3%' },
      events: [{ timeZone: 'America/New_York', title: 'CPI', forecast: '0.4%' }],
    });
  });

  it('refuses a "billion laughs" built from merge keys by the alias limit', () => {
    let text = 'l0: &l0 {k: v}\n';
    for (let i = 1; i <= 25; i++) text += `l${i}: &l${i} {<<: [*l${i - 1}], a${i}: [*l${i - 1}, *l${i - 1}, *l${i - 1}]}\n`;
    expect(() => parseYamlText(text)).toThrow(YamlTextError);
    expect(() => parseYamlText(text)).toThrow(/alias expansions/);
  });
});

describe('forEachTsvLine', () => {
  async function lines(chunks: string[], maxLineBytes?: number): Promise<TsvLine[]> {
    const seen: TsvLine[] = [];
    await forEachTsvLine(Readable.from(chunks.map((chunk) => Buffer.from(chunk))), (line) => seen.push(line), maxLineBytes);
    return seen;
  }

  it('reports a line over the limit as that row, keeping at most its first KiB (its first field names the filing), and reads the rows after it', async () => {
    const long = `0001-26-000001\t${'x'.repeat(50)}`;
    expect(await lines(['A\tB\n', long.slice(0, 20), long.slice(20), '\r\nc\td\n'], 32)).toEqual([
      { header: ['A', 'B'], line: 1 },
      { fields: ['0001-26-000001', 'x'.repeat(50)], row: 1, line: 2, problem: 'line 2 is longer than 32 bytes (at least 67 bytes read)' },
      { fields: ['c', 'd'], row: 2, line: 3 },
    ]);
  });

  it('reports a NUL byte as a problem of its row', async () => {
    expect(await lines(['A\n', 'x\u0000y\n'])).toEqual([
      { header: ['A'], line: 1 },
      { fields: ['x\u0000y'], row: 1, line: 2, problem: 'line 2 contains a NUL byte' },
    ]);
  });
});

describe('listSourceFiles and loadSource', () => {
  it('follows symlinked files and folders once, refuses special files and names each decision', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-listing-'));
    const outside = await mkdtemp(path.join(tmpdir(), 'pdsnap-outside-'));
    await mkdir(path.join(root, 'a/b'), { recursive: true });
    await writeFile(path.join(root, 'a/b/one.md'), 'x');
    await writeFile(path.join(outside, 'two.md'), 'y');
    await symlink(outside, path.join(root, 'a/linked'));
    await symlink(path.join(root, 'a'), path.join(root, 'a/b/up'));
    await symlink(path.join(root, 'missing'), path.join(root, 'a/dangling'));
    execFileSync('mkfifo', [path.join(root, 'a/pipe')]);
    const listing = await listSourceFiles(root, path.join(root, 'a'));
    expect(listing.files).toEqual([path.join(root, 'a/b/one.md'), path.join(root, 'a/linked/two.md')]);
    expect(listing.notes).toEqual([
      { source: 'a/b/up', message: 'symlink followed to a' },
      { source: 'a/b/up', message: 'folder not read again: it is a, read already (a symlink loop or a second link)' },
      { source: 'a/dangling', message: 'symlink not followed: its target cannot be read (ENOENT)' },
      { source: 'a/linked', message: `symlink followed to ${outside}` },
      { source: 'a/pipe', message: 'refused: a FIFO (named pipe) is not a regular file; it was not opened' },
    ]);
    const loaded = await loadSource(root, path.join(root, 'a/linked/two.md'));
    expect(loaded.provenance).toMatchObject({ path: 'a/linked/two.md', bytes: 1, resolvedPath: path.join(outside, 'two.md') });
    expect((await loadSource(root, path.join(root, 'a/b/one.md'))).provenance.resolvedPath).toBeUndefined();
  });

  it('refuses a file over the cap and a FIFO put where a file was, without blocking', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-load-'));
    await writeFile(path.join(root, 'big.md'), 'x'.repeat(100));
    execFileSync('mkfifo', [path.join(root, 'pipe.md')]);
    await expect(loadSource(root, path.join(root, 'big.md'), 10)).rejects.toThrow(
      'big.md: 100 bytes: larger than the 10 bytes a source file may be',
    );
    await expect(loadSource(root, path.join(root, 'pipe.md'))).rejects.toBeInstanceOf(UnreadableSource);
  });

  it(`stops at ${MAX_FOLDER_DEPTH} folders deep`, async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-deep-'));
    const deepest = path.join(root, ...Array(MAX_FOLDER_DEPTH + 1).fill('d'));
    await mkdir(deepest, { recursive: true });
    await writeFile(path.join(deepest, 'x.md'), 'x');
    const listing = await listSourceFiles(root, root);
    expect(listing.files).toEqual([]);
    expect(listing.notes).toEqual([
      {
        source: Array(MAX_FOLDER_DEPTH + 1)
          .fill('d')
          .join('/'),
        message: `folder not read: deeper than ${MAX_FOLDER_DEPTH} levels`,
      },
    ]);
  });
});

describe('forEachTsvLine on an over-long header', () => {
  it('stops reading at the limit instead of reading the rest of the line', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled++;
        this.push(Buffer.alloc(1024, 'H'));
      },
    });
    const seen: TsvLine[] = [];
    await expect(
      forEachTsvLine(
        endless,
        (line) => {
          seen.push(line);
          if ('header' in line && line.problem) throw new Error(line.problem);
        },
        4096,
      ),
    ).rejects.toThrow(/^line 1 is longer than 4096 bytes/);
    expect(pulled).toBeLessThan(20);
  });
});
