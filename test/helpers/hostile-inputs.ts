import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { appendFile, copyFile, mkdir, readFile, rename, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createServer } from 'node:net';
import yazl from 'yazl';

/**
 * Hostile source files, one per case, planted into a copy of the committed sample tree
 * (data/sources, dated for 2026-11-22). Shared by test/cli/hostile-sources.test.ts, which asserts
 * what the build does with each, and bench/hostile-sources.ts, which measures time, memory and
 * records kept with any pdsnap binary (the figures of docs/hostile-sources.md).
 */

export const NOW = '2026-11-22T12:00:00.000Z';
/** Written where an entity or alias would put it if it were ever expanded: it must never be published. */
export const MARKER = 'PWNED-MARKER';

export const REPO_ROOT = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
export const SAMPLE_SOURCES = path.join(REPO_ROOT, 'data/sources');
export const DATASET_FIXTURE = path.join(REPO_ROOT, 'test/fixtures/filings/dataset-2026q3');
const DATASET_MEMBERS = ['SUBMISSION.tsv', 'COVERPAGE.tsv', 'SUMMARYPAGE.tsv', 'INFOTABLE.tsv'];

function findRepoRoot(from: string): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

export type Dataset = 'articles' | 'calendar' | 'smart-money';

export interface HostileCase {
  id: string;
  /** What it is, as the issue's table names it. */
  input: string;
  dataset: Dataset;
  /** Extra build flags. */
  args?: string[];
  /**
   * Plants the case into `sources` (a copy of the sample); `outside` is a folder beside it for
   * symlink targets. May return a function that undoes what must not outlive the build (a socket).
   */
  plant(sources: string, outside: string): Promise<void | (() => Promise<void>)>;
}

// ---------- articles ----------

/** Declares a feed source in articles/sources.yaml (feeds are read only when declared). */
export async function declareFeed(
  sources: string,
  id: string,
  feedPath: string,
  format: 'rss' | 'atom' | 'jsonfeed' = 'rss',
): Promise<void> {
  await appendFile(
    path.join(sources, 'articles/sources.yaml'),
    [
      '',
      `  - id: ${id}`,
      '    locale: en-US',
      '    rights: { license: Test Feed Terms, holder: Test Holder, reuse: free }',
      `    attribution: { source: ${id}, text: "Test feed ${id}" }`,
      '    defaults: { author: Test Desk, category: markets }',
      `    feed: { path: ${feedPath}, format: ${format} }`,
      '',
    ].join('\n'),
  );
}

export function rssFeed(options: { doctype?: string; items?: number; titlePrefix?: string; extra?: string } = {}): string {
  const items = Array.from({ length: options.items ?? 2 }, (_, index) =>
    [
      '    <item>',
      `      <title>${options.titlePrefix ?? 'Hostile feed item'} ${index + 1}</title>`,
      `      <link>https://hostile.example/items/item-${index + 1}</link>`,
      `      <pubDate>Fri, 20 Nov 2026 0${index}:00:00 GMT</pubDate>`,
      `      <description>Body of item ${index + 1}.</description>`,
      '    </item>',
    ].join('\n'),
  ).join('\n');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    ...(options.doctype ? [options.doctype] : []),
    '<rss version="2.0">',
    '  <channel>',
    '    <title>Hostile</title>',
    options.extra ?? '',
    items,
    '  </channel>',
    '</rss>',
    '',
  ].join('\n');
}

export function markdownArticle(fields: Record<string, string>, body = 'A body paragraph.'): string {
  const lines = Object.entries({ author: 'Test Desk', categories: '[markets]', source: 'harbor-wire', ...fields }).map(
    ([key, value]) => `${key}: ${value}`,
  );
  return ['---', ...lines, '---', '', body, ''].join('\n');
}

/** A "billion laughs": nine aliases of nine aliases... seven levels, 9^7 strings if expanded. */
export function yamlAliasBomb(): string {
  const lines = [`a: &a ["${MARKER}","${MARKER}","${MARKER}","${MARKER}","${MARKER}","${MARKER}","${MARKER}","${MARKER}","${MARKER}"]`];
  const names = 'abcdefg';
  for (let level = 1; level < names.length; level++) {
    const name = names[level]!;
    lines.push(
      `${name}: &${name} [${Array(9)
        .fill(`*${names[level - 1]}`)
        .join(',')}]`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function deepXml(depth: number): string {
  return `${'<x>'.repeat(depth)}deep${'</x>'.repeat(depth)}`;
}

// ---------- filings ----------

const SAMPLE_SUBMISSION = 'filings/edgar/1542392/0001542392-26-000174.txt';
const SAMPLE_NOTICE = 'filings/edgar/1653245/0001653245-26-000174/primary_doc.xml';

async function plantPrimaryDoc(sources: string, rewrite: (xml: string) => string): Promise<void> {
  const folder = path.join(sources, 'filings/edgar/9000001/0009000001-26-000001');
  await mkdir(folder, { recursive: true });
  const xml = (await readFile(path.join(sources, SAMPLE_NOTICE), 'utf8')).replace(/0001653245/g, '0009000001');
  await writeFile(path.join(folder, 'primary_doc.xml'), rewrite(xml));
}

function afterXmlDeclaration(xml: string, insert: string): string {
  const end = xml.indexOf('?>') + 2;
  return `${xml.slice(0, end)}\n${insert}${xml.slice(end)}`;
}

/** A data set ZIP: the fixture's members, some replaced, some added. */
export async function writeForm13fZip(
  file: string,
  options: { replace?: Record<string, Readable | Buffer>; extra?: (zip: yazl.ZipFile) => void } = {},
): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const member of DATASET_MEMBERS) {
    const replacement = options.replace?.[member];
    const name = `2026q3_form13f/${member}`;
    if (replacement instanceof Readable) zip.addReadStream(replacement, name);
    else zip.addBuffer(replacement ?? (await readFile(path.join(DATASET_FIXTURE, member))), name);
  }
  options.extra?.(zip);
  zip.end();
  await mkdir(path.dirname(file), { recursive: true });
  await pipeline(zip.outputStream, createWriteStream(file));
}

/** `bytes` of one line with no line break: what a small ZIP can inflate to. */
function oneLongLine(bytes: number): Readable {
  const block = Buffer.alloc(1024 * 1024, 'A');
  let left = bytes;
  return new Readable({
    read() {
      if (left <= 0) return this.push(null);
      const size = Math.min(left, block.length);
      left -= size;
      this.push(size === block.length ? block : block.subarray(0, size));
    },
  });
}

/**
 * Rewrites every occurrence (local header and central directory) of a member name with another of
 * the same length: how a ZIP with `../` names is made, since ZIP writers refuse to write them.
 */
async function renameZipMembers(file: string, from: string, to: string): Promise<void> {
  if (from.length !== to.length) throw new Error('names must have the same length');
  const bytes = await readFile(file);
  const fromBytes = Buffer.from(from);
  for (let at = bytes.indexOf(fromBytes); at !== -1; at = bytes.indexOf(fromBytes, at + 1)) bytes.write(to, at);
  await writeFile(file, bytes);
}

/** Sets the declared uncompressed size of a member (local header and central directory). */
async function declareMemberSize(file: string, member: string, size: number): Promise<void> {
  const bytes = await readFile(file);
  const name = Buffer.from(member);
  for (let at = bytes.indexOf(name); at !== -1; at = bytes.indexOf(name, at + 1)) {
    if (bytes.readUInt32LE(at - 30) === 0x04034b50) bytes.writeUInt32LE(size, at - 30 + 22);
    else if (bytes.readUInt32LE(at - 46) === 0x02014b50) bytes.writeUInt32LE(size, at - 46 + 24);
  }
  await writeFile(file, bytes);
}

/**
 * A ZIP of stored (uncompressed) members, written directly: ZIP writers take minutes for 100,000
 * members. ZIP64 end records, since the count passes 65,535.
 */
function storedZip(members: { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of members) {
    const nameBytes = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(45, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const zip64End = Buffer.alloc(56);
  zip64End.writeUInt32LE(0x06064b50, 0);
  zip64End.writeBigUInt64LE(44n, 4);
  zip64End.writeUInt16LE(45, 12);
  zip64End.writeUInt16LE(45, 14);
  zip64End.writeBigUInt64LE(BigInt(members.length), 24);
  zip64End.writeBigUInt64LE(BigInt(members.length), 32);
  zip64End.writeBigUInt64LE(BigInt(directory.length), 40);
  zip64End.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
  locator.writeUInt32LE(1, 16);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, zip64End, locator, end]);
}

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

function crc32(data: Buffer): number {
  let crc = -1;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

// ---------- the cases ----------

export const HOSTILE_CASES: HostileCase[] = [
  {
    id: 'feed-external-entity',
    input: 'RSS feed whose DOCTYPE declares an external entity',
    dataset: 'articles',
    async plant(sources) {
      await declareFeed(sources, 'hostile-wire', 'feeds/hostile.xml');
      await writeFile(
        path.join(sources, 'articles/feeds/hostile.xml'),
        rssFeed({ doctype: '<!DOCTYPE rss [\n  <!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>', titlePrefix: '&xxe;' }),
      );
    },
  },
  {
    id: 'feed-internal-entity',
    input: "an internal entity declared in a feed's DTD",
    dataset: 'articles',
    async plant(sources) {
      await declareFeed(sources, 'hostile-wire', 'feeds/hostile.xml');
      await writeFile(
        path.join(sources, 'articles/feeds/hostile.xml'),
        rssFeed({ doctype: `<!DOCTYPE rss [<!ENTITY co "${MARKER}">]>`, titlePrefix: '&co;' }),
      );
    },
  },
  {
    id: 'feed-bare-doctype',
    input: 'RSS 0.91 feed with a bare DOCTYPE (no declarations)',
    dataset: 'articles',
    async plant(sources) {
      await declareFeed(sources, 'hostile-wire', 'feeds/hostile.xml');
      const doctype =
        '<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd">';
      await writeFile(path.join(sources, 'articles/feeds/hostile.xml'), rssFeed({ doctype }));
    },
  },
  {
    id: 'feed-deep-nesting',
    input: 'RSS feed nested 50,000 deep',
    dataset: 'articles',
    async plant(sources) {
      await declareFeed(sources, 'hostile-wire', 'feeds/hostile.xml');
      await writeFile(path.join(sources, 'articles/feeds/hostile.xml'), rssFeed({ extra: deepXml(50_000) }));
    },
  },
  {
    id: 'feed-gzip-named-xml',
    input: 'gzip bytes named .xml',
    dataset: 'articles',
    async plant(sources) {
      await declareFeed(sources, 'hostile-wire', 'feeds/hostile.xml');
      await writeFile(path.join(sources, 'articles/feeds/hostile.xml'), gzipSync(rssFeed()));
    },
  },
  {
    id: 'feed-utf16',
    input: 'RSS feed in UTF-16 with a byte-order mark',
    dataset: 'articles',
    async plant(sources) {
      await declareFeed(sources, 'hostile-wire', 'feeds/hostile.xml');
      const text = rssFeed().replace('encoding="UTF-8"', 'encoding="UTF-16"');
      await writeFile(
        path.join(sources, 'articles/feeds/hostile.xml'),
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
      );
    },
  },
  {
    id: 'markdown-bom',
    input: 'Markdown article starting with a UTF-8 byte-order mark',
    dataset: 'articles',
    async plant(sources) {
      await writeFile(
        path.join(sources, 'articles/en-US/2026-11-20-bom-article.md'),
        `\uFEFF${markdownArticle({ title: 'An article with a BOM', date: '2026-11-20' })}`,
      );
    },
  },
  {
    id: 'markdown-crlf',
    input: 'CRLF front matter',
    dataset: 'articles',
    async plant(sources) {
      const text = markdownArticle({ title: 'Windows line ends', date: '2026-11-20', author: 'Carriage Return' }).replace(/\n/g, '\r\n');
      await writeFile(path.join(sources, 'articles/en-US/2026-11-20-crlf-article.md'), text);
    },
  },
  {
    id: 'sources-yaml-alias-bomb',
    input: 'YAML alias bomb in articles/sources.yaml',
    dataset: 'articles',
    async plant(sources) {
      await appendFile(path.join(sources, 'articles/sources.yaml'), `\nbomb:\n${yamlAliasBomb().replace(/^/gm, '  ')}`);
    },
  },
  {
    id: 'markdown-symlink-file',
    input: 'an article that is a symlink to a file outside the tree',
    dataset: 'articles',
    async plant(sources, outside) {
      await mkdir(outside, { recursive: true });
      const target = path.join(outside, 'linked-article.md');
      await writeFile(target, markdownArticle({ title: 'Reached through a symlink', date: '2026-11-20' }));
      await symlink(target, path.join(sources, 'articles/en-US/2026-11-20-linked-article.md'));
    },
  },
  {
    id: 'articles-symlink-locale-folder',
    input: 'articles/en-US as a symlink to a folder elsewhere',
    dataset: 'articles',
    async plant(sources, outside) {
      await mkdir(outside, { recursive: true });
      await rename(path.join(sources, 'articles/en-US'), path.join(outside, 'en-US'));
      await symlink(path.join(outside, 'en-US'), path.join(sources, 'articles/en-US'));
    },
  },
  {
    id: 'articles-symlink-loop',
    input: 'a folder symlink pointing back at its parent (a loop)',
    dataset: 'articles',
    async plant(sources) {
      await symlink('..', path.join(sources, 'articles/en-US/loop'));
    },
  },
  {
    id: 'markdown-fifo',
    input: 'an article that is a FIFO',
    dataset: 'articles',
    async plant(sources) {
      execFileSync('mkfifo', [path.join(sources, 'articles/en-US/2026-11-20-pipe.md')]);
    },
  },
  {
    id: 'markdown-socket',
    input: 'an article that is a UNIX socket',
    dataset: 'articles',
    async plant(sources) {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(path.join(sources, 'articles/en-US/2026-11-20-socket.md'), resolve));
      return () => new Promise<void>((resolve) => server.close(() => resolve()));
    },
  },
  {
    id: 'markdown-too-large',
    input: 'a Markdown file larger than the size cap (65 MiB)',
    dataset: 'articles',
    async plant(sources) {
      const body = Buffer.alloc(65 * 1024 * 1024, 'a\n');
      await writeFile(
        path.join(sources, 'articles/en-US/2026-11-20-huge.md'),
        Buffer.concat([Buffer.from(markdownArticle({ title: 'Huge', date: '2026-11-20' })), body]),
      );
    },
  },
  {
    id: 'markdown-year-0026',
    input: 'an article dated 0026-11-21',
    dataset: 'articles',
    async plant(sources) {
      await writeFile(path.join(sources, 'articles/en-US/year-typo.md'), markdownArticle({ title: 'A year typo', date: '0026-11-21' }));
    },
  },
  {
    id: 'markdown-nul',
    input: 'NUL byte in a Markdown title',
    dataset: 'articles',
    async plant(sources) {
      await writeFile(
        path.join(sources, 'articles/en-US/2026-11-20-nul.md'),
        markdownArticle({ title: 'Null\u0000title', date: '2026-11-20' }),
      );
    },
  },
  {
    id: 'json-article-nul',
    input: 'NUL escape (\\u0000) in a JSON article title',
    dataset: 'articles',
    async plant(sources) {
      const article = { title: 'Null\u0000escape', date: '2026-11-20', source: 'harbor-wire', body: 'Text.' };
      await writeFile(path.join(sources, 'articles/json/nul.json'), JSON.stringify([article]));
    },
  },
  {
    id: 'markdown-invalid-utf8',
    input: 'invalid UTF-8 in a Markdown body',
    dataset: 'articles',
    async plant(sources) {
      const text = Buffer.from(markdownArticle({ title: 'Bad bytes', date: '2026-11-20' }, 'Caf\u00e9 prices rose.'));
      const at = text.indexOf(Buffer.from('\u00e9'));
      text[at] = 0xff; // a byte that never occurs in UTF-8
      await writeFile(path.join(sources, 'articles/en-US/2026-11-20-bad-bytes.md'), text);
    },
  },
  {
    id: 'json-duplicate-keys',
    input: 'duplicate keys in a JSON article',
    dataset: 'articles',
    async plant(sources) {
      await writeFile(
        path.join(sources, 'articles/json/duplicate.json'),
        '[\n  {\n    "title": "First title",\n    "date": "2026-11-20",\n    "source": "harbor-wire",\n    "title": "Second title",\n    "body": "Text."\n  }\n]\n',
      );
    },
  },
  {
    id: 'json-400-digit-number',
    input: 'a number with 400 digits',
    dataset: 'articles',
    async plant(sources) {
      await writeFile(
        path.join(sources, 'articles/json/huge-number.json'),
        `[{"title": ${'9'.repeat(400)}, "date": "2026-11-20", "source": "harbor-wire", "body": "Text."}]\n`,
      );
    },
  },
  // ---------- calendar ----------
  {
    id: 'provider-xml-external-entity',
    input: 'provider calendar XML whose DOCTYPE declares an external entity',
    dataset: 'calendar',
    async plant(sources) {
      const dir = path.join(sources, 'calendar/provider');
      const xml = await readFile(path.join(dir, 'ff_calendar_thisweek.xml'), 'latin1');
      await writeFile(
        path.join(dir, 'ff_hostile.xml'),
        afterXmlDeclaration(xml, '<!DOCTYPE weeklyevents [\n<!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>').replace(
          '<title>',
          '<title>&xxe;',
        ),
        'latin1',
      );
      await copyFile(path.join(dir, 'ff_calendar_thisweek.xml.meta.yaml'), path.join(dir, 'ff_hostile.xml.meta.yaml'));
    },
  },
  {
    id: 'provider-xml-deep-nesting',
    input: 'provider calendar XML nested 50,000 deep',
    dataset: 'calendar',
    async plant(sources) {
      const dir = path.join(sources, 'calendar/provider');
      const xml = await readFile(path.join(dir, 'ff_calendar_thisweek.xml'), 'latin1');
      await writeFile(path.join(dir, 'ff_hostile.xml'), xml.replace('<weeklyevents>', `<weeklyevents>${deepXml(50_000)}`), 'latin1');
      await copyFile(path.join(dir, 'ff_calendar_thisweek.xml.meta.yaml'), path.join(dir, 'ff_hostile.xml.meta.yaml'));
    },
  },
  {
    id: 'calendar-yaml-alias-bomb',
    input: 'YAML alias bomb in a calendar .yaml',
    dataset: 'calendar',
    async plant(sources) {
      await writeFile(path.join(sources, 'calendar/bomb.yaml'), `${yamlAliasBomb()}events: []\n`);
    },
  },
  {
    id: 'sidecar-alias-bomb',
    input: 'YAML alias bomb in a .meta.yaml sidecar',
    dataset: 'calendar',
    async plant(sources) {
      const csv = await readFile(path.join(sources, 'calendar/activity.csv'), 'utf8');
      const [header, , second] = csv.split('\n');
      await writeFile(path.join(sources, 'calendar/extra.csv'), `${header}\n${second!.replace(/^[^,]+/, 'Extra Index')}\n`);
      await writeFile(path.join(sources, 'calendar/extra.csv.meta.yaml'), yamlAliasBomb());
    },
  },
  {
    id: 'csv-unclosed-quote',
    input: 'curated CSV with an opening quote never closed in row 3',
    dataset: 'calendar',
    async plant(sources) {
      const file = path.join(sources, 'calendar/activity.csv');
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines[2] = `"${lines[2]}`;
      await writeFile(file, lines.join('\n'));
    },
  },
  {
    id: 'csv-quote-inside-field',
    input: 'curated CSV with a quote inside an unquoted field in row 3',
    dataset: 'calendar',
    async plant(sources) {
      const file = path.join(sources, 'calendar/activity.csv');
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines[2] = lines[2]!.replace(' ', ' "quoted" ');
      await writeFile(file, lines.join('\n'));
    },
  },
  {
    id: 'calendar-year-0000',
    input: 'a calendar event dated 0000',
    dataset: 'calendar',
    async plant(sources) {
      const csv = await readFile(path.join(sources, 'calendar/activity.csv'), 'utf8');
      const [header, , second] = csv.split('\n');
      await writeFile(
        path.join(sources, 'calendar/typo.csv'),
        `${header}\n${second!.replace(/^[^,]+/, 'Typo Index').replace(/,\d{4}-/, ',0000-')}\n`,
      );
      await copyFile(path.join(sources, 'calendar/activity.csv.meta.yaml'), path.join(sources, 'calendar/typo.csv.meta.yaml'));
    },
  },
  // ---------- filings ----------
  {
    id: 'primary-doc-external-entity',
    input: 'primary_doc.xml whose DOCTYPE declares an external entity',
    dataset: 'smart-money',
    async plant(sources) {
      await plantPrimaryDoc(sources, (xml) =>
        afterXmlDeclaration(xml, '<!DOCTYPE edgarSubmission [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>').replace(
          'VANTAGE HOLLOW ADVISERS LLC',
          '&xxe;',
        ),
      );
    },
  },
  {
    id: 'primary-doc-deep-nesting',
    input: 'primary_doc.xml nested 50,000 deep',
    dataset: 'smart-money',
    async plant(sources) {
      await plantPrimaryDoc(sources, (xml) => xml.replace('<formData>', `<formData>${deepXml(50_000)}`));
    },
  },
  {
    id: 'filing-year-0026',
    input: 'a cover page dated 09-30-0026',
    dataset: 'smart-money',
    async plant(sources) {
      await plantPrimaryDoc(sources, (xml) => xml.replace(/09-30-2026/g, '09-30-0026'));
    },
  },
  {
    id: 'submission-100k-documents',
    input: 'EDGAR full submission with 100,000 <DOCUMENT> blocks',
    dataset: 'smart-money',
    async plant(sources) {
      const file = path.join(sources, SAMPLE_SUBMISSION);
      const text = await readFile(file, 'utf8');
      const extra = '<DOCUMENT>\n<TYPE>EX-99\n<SEQUENCE>3\n<FILENAME>note.txt\n<TEXT>\nAn exhibit.\n</TEXT>\n</DOCUMENT>\n'.repeat(100_000);
      const end = text.lastIndexOf('</SEC-DOCUMENT>');
      await writeFile(file, text.slice(0, end) + extra + text.slice(end));
    },
  },
  {
    id: 'submission-misplaced-xml-close',
    input: 'a misplaced </XML> in a .txt filing',
    dataset: 'smart-money',
    async plant(sources) {
      const text = (await readFile(path.join(sources, SAMPLE_SUBMISSION), 'utf8')).replace(/0001542392-26-000174/g, '0001542392-26-000999');
      const open = text.indexOf('<XML>') + '<XML>'.length;
      const folder = path.join(sources, 'filings/edgar/1542392');
      await writeFile(path.join(folder, '0001542392-26-000999.txt'), `${text.slice(0, open)}\n</XML>${text.slice(open)}`);
    },
  },
  {
    id: 'submission-bare-cr',
    input: 'a full submission (.nc) whose lines end in a bare CR',
    dataset: 'smart-money',
    async plant(sources) {
      const file = path.join(sources, SAMPLE_SUBMISSION);
      const text = await readFile(file, 'utf8');
      // The same filing, as a .nc dissemination file with old Mac line ends, in place of the .txt.
      await writeFile(file.replace(/\.txt$/, '.nc'), text.replace(/\n/g, '\r'));
      await unlink(file);
    },
  },
  {
    id: 'investors-yaml-alias-bomb',
    input: 'YAML alias bomb in filings/investors.yaml',
    dataset: 'smart-money',
    async plant(sources) {
      await appendFile(path.join(sources, 'filings/investors.yaml'), `bomb:\n${yamlAliasBomb().replace(/^/gm, '  ')}`);
    },
  },
  {
    id: 'dataset-zip-1gib-line',
    input: 'a 1 MB data set ZIP whose INFOTABLE.tsv inflates to one 1 GiB line',
    dataset: 'smart-money',
    async plant(sources) {
      await writeForm13fZip(path.join(sources, 'filings/datasets/2026q3_form13f.zip'), {
        replace: { 'INFOTABLE.tsv': oneLongLine(1024 ** 3) },
      });
    },
  },
  {
    id: 'dataset-zip-member-too-large',
    input: 'a data set ZIP member declaring 3.75 GiB inflated',
    dataset: 'smart-money',
    async plant(sources) {
      const file = path.join(sources, 'filings/datasets/2026q3_form13f.zip');
      await writeForm13fZip(file);
      await declareMemberSize(file, '2026q3_form13f/INFOTABLE.tsv', 0xf000_0000);
    },
  },
  {
    id: 'dataset-zip-dotdot-names',
    input: 'a data set ZIP with ../ member names',
    dataset: 'smart-money',
    async plant(sources) {
      const file = path.join(sources, 'filings/datasets/2026q3_form13f.zip');
      await writeForm13fZip(file, {
        extra: (zip) => {
          zip.addBuffer(Buffer.from(MARKER), 'xx/xx/evil.tsv');
          zip.addBuffer(Buffer.from(MARKER), 'xx/xx/xx/INFOTABLE.tsv');
        },
      });
      await renameZipMembers(file, 'xx/xx/', '../../');
    },
  },
  {
    id: 'dataset-zip-100k-members',
    input: 'a data set ZIP with 100,000 members',
    dataset: 'smart-money',
    async plant(sources) {
      const members = await Promise.all(
        DATASET_MEMBERS.map(async (member) => ({
          name: `2026q3_form13f/${member}`,
          data: await readFile(path.join(DATASET_FIXTURE, member)),
        })),
      );
      const empty = Buffer.alloc(0);
      for (let index = 0; index < 100_000; index++) members.push({ name: `junk/${index}.txt`, data: empty });
      await mkdir(path.join(sources, 'filings/datasets'), { recursive: true });
      await writeFile(path.join(sources, 'filings/datasets/2026q3_form13f.zip'), storedZip(members));
    },
  },
  {
    id: 'datasets-symlink-folder',
    input: 'filings/datasets/2026q3 as a symlink to a folder of TSVs',
    dataset: 'smart-money',
    async plant(sources, outside) {
      await mkdir(path.join(outside, '2026q3'), { recursive: true });
      for (const member of DATASET_MEMBERS) await copyFile(path.join(DATASET_FIXTURE, member), path.join(outside, '2026q3', member));
      await mkdir(path.join(sources, 'filings/datasets'), { recursive: true });
      await symlink(path.join(outside, '2026q3'), path.join(sources, 'filings/datasets/2026q3'));
    },
  },
];

export function hostileCase(id: string): HostileCase {
  const found = HOSTILE_CASES.find((c) => c.id === id);
  if (!found) throw new Error(`no hostile case ${id}`);
  return found;
}
