import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { type SampleSubmission, sampleFullSubmissions } from '../../src/sample/filings.js';

/**
 * A local HTTP server that speaks as SEC EDGAR and a feed provider do, for the tests and the fetch
 * benchmark (pdsnap cannot reach the real ones from here): the quarterly form indexes, with the
 * header lines EDGAR writes (one quarter may be served in the layout of the daily indexes, whose
 * header wraps), every Form 13F filing of the sample generator as a full submission, Form 13F data
 * set ZIPs, and feeds. Like EDGAR it answers gzip to a client that asks for it, and 304 to a
 * conditional request for an unchanged file. It records every request, and faults can be switched
 * on per path: 5xx, 429 with Retry-After, SEC's 403 rate page, a body cut short or reset, a body
 * that stalls, a redirect, a gzip bomb.
 */

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  /** performance.now() when the server read the request. */
  at: number;
  status: number;
}

export type Fault =
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'sec-rate-page' }
  | { kind: 'cut-short' }
  | { kind: 'reset' }
  | { kind: 'stall' }
  | { kind: 'redirect'; location: string; status?: number }
  | { kind: 'gzip-bomb'; inflatedMiB: number };

export interface Document {
  body: Buffer | string;
  contentType: string;
}

export interface EdgarServerOptions {
  /** The instant the EDGAR tree is as of: the sample's filings at `now`, each in the index of its filing quarter. */
  now: Date;
  /** Managers of the sample generator (28 of its own; more are made up): about two filings each. */
  managers?: number;
  /** Index folders (`2026/QTR4`) served in the daily indexes' layout: wrapped header, wider form type, dates as YYYYMMDD. */
  dailyLayout?: string[];
  /** Data set ZIPs by file name, served under /files/structureddata/data/form-13f-data-sets/. */
  datasets?: Record<string, Buffer>;
  /** Any other document by path (`/feeds/harbor-wire.xml`). */
  documents?: Record<string, Document>;
}

export interface EdgarServer {
  url: string;
  submissions: SampleSubmission[];
  /** Every request, in the order read. */
  requests: RecordedRequest[];
  /** Switches a fault on for `path` for the next `times` requests (default: every one). */
  fault(path: string, fault: Fault, times?: number): void;
  clearFaults(): void;
  /** Adds or replaces a document (a feed that changed). */
  setDocument(path: string, document: Document): void;
  close(): Promise<void>;
}

const LAST_MODIFIED = 'Sat, 21 Nov 2026 22:15:04 GMT';
const DATASET_PATH = '/files/structureddata/data/form-13f-data-sets/';

export async function startEdgarServer(options: EdgarServerOptions): Promise<EdgarServer> {
  const submissions = sampleFullSubmissions(options.now, { managers: options.managers ?? 28 });
  const documents = new Map<string, Document>();
  for (const s of submissions)
    documents.set(`/Archives/edgar/data/${s.cik}/${s.accession}.txt`, { body: s.text, contentType: 'text/plain' });
  for (const [folder, lines] of indexLines(submissions)) {
    const daily = options.dailyLayout?.includes(folder) ?? false;
    documents.set(`/Archives/edgar/full-index/${folder}/form.idx`, {
      body: formIndex(lines, daily, options.now),
      contentType: 'text/plain',
    });
  }
  for (const [name, zip] of Object.entries(options.datasets ?? {}))
    documents.set(`${DATASET_PATH}${name}`, { body: zip, contentType: 'application/zip' });
  for (const [path, document] of Object.entries(options.documents ?? {})) documents.set(path, document);

  const faults = new Map<string, { fault: Fault; left: number }>();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const recorded: RecordedRequest = { path, headers: request.headers, at: performance.now(), status: 0 };
    requests.push(recorded);
    const armed = faults.get(path);
    if (armed !== undefined && armed.left > 0) {
      armed.left -= 1;
      recorded.status = answerWithFault(armed.fault, response, documents.get(path));
      return;
    }
    recorded.status = answer(request, response, documents.get(path));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    submissions,
    requests,
    fault: (path, fault, times = Number.POSITIVE_INFINITY) => faults.set(path, { fault, left: times }),
    clearFaults: () => faults.clear(),
    setDocument: (path, document) => documents.set(path, document),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The URL path of a filing's full submission. */
export function submissionPath(s: SampleSubmission): string {
  return `/Archives/edgar/data/${s.cik}/${s.accession}.txt`;
}

function etagOf(body: Buffer | string): string {
  return `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
}

/** A document as EDGAR serves it: 304 to a matching validator, gzip when asked for (but never a ZIP), else the bytes. */
function answer(request: IncomingMessage, response: ServerResponse, document: Document | undefined): number {
  if (document === undefined) {
    response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
    return 404;
  }
  const etag = etagOf(document.body);
  if (
    request.headers['if-none-match'] === etag ||
    (request.headers['if-none-match'] === undefined && request.headers['if-modified-since'] === LAST_MODIFIED)
  ) {
    response.writeHead(304, { etag, 'last-modified': LAST_MODIFIED }).end();
    return 304;
  }
  const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')) && document.contentType !== 'application/zip';
  const body = gzip ? gzipSync(document.body) : Buffer.from(document.body);
  response.writeHead(200, {
    'content-type': document.contentType,
    'content-length': body.length,
    etag,
    'last-modified': LAST_MODIFIED,
    ...(gzip ? { 'content-encoding': 'gzip', vary: 'Accept-Encoding' } : {}),
  });
  response.end(body);
  return 200;
}

/** SEC's answer to a client past its rate: a 403 page, ten minutes without requests. */
const SEC_RATE_PAGE = [
  '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN">',
  '<html><head><title>SEC.gov | Request Rate Threshold Exceeded</title></head><body>',
  '<h1>Your Request Originates from an Undeclared Automated Tool</h1>',
  '<p>To allow for equitable access to all users, SEC reserves the right to limit requests originating from undeclared automated tools.',
  'Your request has been identified as part of a network of automated tools outside of the acceptable policy and will be managed until action is taken to declare your traffic.</p>',
  '<h2>Request Rate Threshold Exceeded</h2>',
  '<p>Please limit your request rate to 10 requests per second and wait 10 minutes before resuming.</p>',
  '</body></html>',
].join('\n');

function answerWithFault(fault: Fault, response: ServerResponse, document: Document | undefined): number {
  const body = Buffer.from(document?.body ?? 'x'.repeat(4096));
  switch (fault.kind) {
    case 'status':
      response.writeHead(fault.status, { 'content-type': 'text/plain', ...(fault.retryAfter ? { 'retry-after': fault.retryAfter } : {}) });
      response.end(`status ${fault.status}`);
      return fault.status;
    case 'sec-rate-page':
      response.writeHead(403, { 'content-type': 'text/html' }).end(SEC_RATE_PAGE);
      return 403;
    case 'cut-short':
      // Half the bytes Content-Length announces, then the connection ends cleanly.
      response.writeHead(200, { 'content-type': document?.contentType ?? 'text/plain', 'content-length': body.length });
      response.write(body.subarray(0, body.length >> 1), () => response.socket?.end());
      return 200;
    case 'reset':
      response.writeHead(200, { 'content-type': document?.contentType ?? 'text/plain', 'content-length': body.length });
      response.write(body.subarray(0, body.length >> 1), () => response.socket?.resetAndDestroy());
      return 200;
    case 'stall':
      // Half the body, then nothing more: the connection stays open until the client gives up.
      response.writeHead(200, { 'content-type': document?.contentType ?? 'text/plain', 'content-length': body.length });
      response.write(body.subarray(0, body.length >> 1));
      return 200;
    case 'redirect':
      response.writeHead(fault.status ?? 302, { location: fault.location }).end();
      return fault.status ?? 302;
    case 'gzip-bomb': {
      const bomb = gzipBomb(fault.inflatedMiB);
      response.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip', 'content-length': bomb.length });
      response.end(bomb);
      return 200;
    }
  }
}

/**
 * A gzip body of about 1 KB per MiB it inflates to: one member of a MiB of zeros, repeated (a gzip
 * stream may hold many members, and every reader inflates them all). 1,024 of them: 1 MB on the
 * wire, 1 GiB inflated.
 */
export function gzipBomb(inflatedMiB: number): Buffer {
  const member = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: inflatedMiB }, () => member));
}

/** The form index lines of each quarter that has filings, by folder (`2026/QTR4`), with other forms around them. */
function indexLines(submissions: readonly SampleSubmission[]): Map<string, IndexLine[]> {
  const byFolder = new Map<string, IndexLine[]>();
  const folderOf = (day: string) => `${day.slice(0, 4)}/QTR${Math.floor((Number(day.slice(5, 7)) - 1) / 3) + 1}`;
  const add = (line: IndexLine) => {
    const folder = folderOf(line.dateFiled);
    if (!byFolder.has(folder)) byFolder.set(folder, []);
    byFolder.get(folder)!.push(line);
  };
  for (const s of submissions) {
    add({
      formType: s.formType,
      companyName: s.companyName,
      cik: s.cik,
      dateFiled: s.filedAt,
      fileName: `edgar/data/${s.cik}/${s.accession}.txt`,
    });
  }
  // Forms other than 13F, as every index holds thousands of: none of them may be fetched.
  for (const folder of [...byFolder.keys()]) {
    const day = byFolder.get(folder)![0]!.dateFiled;
    const others: [string, string, string][] = [
      ['10-K', 'Forgent Power Solutions, Inc.', '2080126'],
      ['4', 'GRAVES JEFFREY A', '1251036'],
      ['SC 13G/A', 'APPLE INC', '320193'],
      ['SCHEDULE 13D/A', 'VisionWave Holdings, Inc.', '2038439'],
      ['8-K', 'SOME  ODDLY   SPACED, INC.', '1000001'],
      ['13F-HR', 'A FILER THAT IS NO SAMPLE MANAGER LLC', '1999999'],
    ];
    others.forEach(([formType, companyName, cik], i) => {
      const accession = `${cik.padStart(10, '0')}-${day.slice(2, 4)}-${String(900_000 + i).padStart(6, '0')}`;
      const fileName = formType === '13F-HR' ? `edgar/data/${cik}/${accession}-index.htm` : `edgar/data/${cik}/${accession}.txt`;
      byFolder.get(folder)!.push({ formType, companyName, cik, dateFiled: day, fileName });
    });
  }
  for (const lines of byFolder.values()) lines.sort((a, b) => (a.formType < b.formType ? -1 : a.formType > b.formType ? 1 : 0));
  return byFolder;
}

interface IndexLine {
  formType: string;
  companyName: string;
  cik: string;
  dateFiled: string;
  fileName: string;
}

/**
 * A form index as EDGAR writes it. The quarterly layout: a 12-character form type, a one-line
 * header, dates as YYYY-MM-DD. The daily layout: its header wraps after CIK, the form type takes
 * 17 characters while the header still says 12, and dates read YYYYMMDD.
 */
function formIndex(lines: readonly IndexLine[], daily: boolean, now: Date): string {
  const received = now.toLocaleDateString('en-US', { timeZone: 'UTC', month: daily ? 'short' : 'long', day: 'numeric', year: 'numeric' });
  const head = [
    `Description:           ${daily ? 'Daily Index of EDGAR Dissemination Feed by Form Type' : 'Master Index of EDGAR Dissemination Feed by Form Type'}`,
    `Last Data Received:    ${received}`,
    'Comments:              webmaster@sec.gov',
    'Anonymous FTP:         ftp://ftp.sec.gov/edgar/',
    ...(daily ? [] : ['Cloud HTTP:            https://www.sec.gov/Archives/']),
    ' ',
    ' ',
    ' ',
    ' ',
    ...(daily
      ? ['Form Type   Company Name                                                  CIK', '      Date Filed  File Name']
      : ['Form Type   Company Name                                                  CIK         Date Filed  File Name']),
    '-'.repeat(141),
  ];
  const rows = lines.map((line) =>
    [
      line.formType.padEnd(daily ? 17 : 12),
      line.companyName.padEnd(62),
      line.cik.padEnd(12),
      (daily ? line.dateFiled.replace(/-/g, '') : line.dateFiled).padEnd(12),
      line.fileName,
      '   ',
    ].join(''),
  );
  return `${[...head, ...rows].join('\n')}\n`;
}
