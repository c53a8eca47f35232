import { close, statSync } from 'node:fs';
import path from 'node:path';
import { pipeline, type Readable, Transform } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import type { FileDigest } from '../../lib/file-digest.js';
import type { BuildNote } from '../../model/report.js';
import { formatBytes } from '../../lib/byte-size.js';
import { MAX_DATASET_MEMBER_BYTES, MAX_DATASET_MEMBERS } from '../source-limits.js';
import { SourceProblem } from '../source-problem.js';

/**
 * The member files of one Form 13F data set, whether it is the SEC's quarterly ZIP or a folder it
 * was extracted to. Members are found by base name, case-insensitively, also when the ZIP nests
 * them in a folder (e.g. `2026q3_form13f/INFOTABLE.tsv`).
 */
export interface Form13fMembers {
  /** Where a member is, as reports show it: `filings/datasets/x.zip!INFOTABLE.tsv` or the file's path. */
  describe(baseName: string): string;
  has(baseName: string): boolean;
  /** Bytes the member holds once inflated (what reading it scans), or null when unknown. */
  size(baseName: string): number | null;
  /** The member's bytes, in pieces each valid until the next is asked for. */
  open(baseName: string): Promise<AsyncIterable<Buffer>>;
  /** The size and digest of a member file (absolute path) that was read to its end, as it was read; none for a ZIP's members. */
  digestOf(file: string): FileDigest | undefined;
  close(): void;
}

export function folderMembers(
  folder: string,
  files: string[],
  relative: (file: string) => string,
  openFile: (file: string, onDigest: (digest: FileDigest) => void) => AsyncIterable<Buffer>,
): Form13fMembers {
  const byName = new Map(files.map((file) => [path.basename(file).toUpperCase(), file]));
  const digests = new Map<string, FileDigest>();
  return {
    describe: (name) => relative(byName.get(name.toUpperCase()) ?? path.join(folder, name)),
    has: (name) => byName.has(name.toUpperCase()),
    size: (name) => {
      const file = byName.get(name.toUpperCase());
      try {
        return file === undefined ? null : statSync(file).size;
      } catch {
        return null;
      }
    },
    open: (name) => {
      const file = byName.get(name.toUpperCase())!;
      return Promise.resolve(openFile(file, (digest) => digests.set(file, digest)));
    },
    digestOf: (file) => digests.get(file),
    close: () => {},
  };
}

/**
 * The members of a data set ZIP. Nothing is ever extracted to disk; members are streamed by base
 * name. A member whose path is unsafe (absolute, `..`, backslashes) is a sign of a crafted archive:
 * it is skipped and named in a note, and the rest of the ZIP is read. A ZIP of more than
 * MAX_DATASET_MEMBERS members is refused from its directory's count alone. A member that would inflate
 * to more than MAX_DATASET_MEMBER_BYTES is refused before it is inflated, and a member is checked
 * to inflate to exactly its declared size (inflateExactly, or yauzl for a stored member), so the
 * declaration cannot lie.
 */
export async function zipMembers(zipFd: number, zipSource: string, notes: BuildNote[] = []): Promise<Form13fMembers> {
  // decodeStrings: false, so that an unsafe name is ours to report rather than an error that ends the listing.
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromFd(zipFd, { lazyEntries: true, autoClose: false, decodeStrings: false }, (error, file) =>
      error ? close(zipFd, () => reject(error)) : resolve(file),
    ),
  );
  if (zip.entryCount > MAX_DATASET_MEMBERS) {
    zip.close();
    throw new SourceProblem(`${zip.entryCount} members, more than the ${MAX_DATASET_MEMBERS} a data set ZIP may hold`, 'file');
  }
  const entries = new Map<string, { entry: yauzl.Entry; name: string }>();
  const unsafe: string[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      const raw = entry.fileName as unknown as Buffer;
      const name = raw.toString((entry.generalPurposeBitFlag & 0x800) !== 0 ? 'utf8' : 'latin1');
      if (yauzl.validateFileName(name) !== null) unsafe.push(name);
      else if (!name.endsWith('/')) {
        const baseName = path.posix.basename(name).toUpperCase();
        if (!entries.has(baseName)) entries.set(baseName, { entry, name });
      }
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  if (unsafe.length > 0) {
    notes.push({
      source: zipSource,
      message: `${unsafe.length} member(s) with an unsafe path skipped, never read or extracted: ${unsafe
        .slice(0, 3)
        .map((name) => JSON.stringify(name))
        .join(', ')}${unsafe.length > 3 ? ', ...' : ''}`,
    });
  }
  return {
    describe: (name) => `${zipSource}!${entries.get(name.toUpperCase())?.name ?? name}`,
    has: (name) => entries.has(name.toUpperCase()),
    size: (name) => entries.get(name.toUpperCase())?.entry.uncompressedSize ?? null,
    open: (name) => {
      const { entry, name: memberName } = entries.get(name.toUpperCase())!;
      if (entry.uncompressedSize > MAX_DATASET_MEMBER_BYTES) {
        return Promise.reject(
          new SourceProblem(
            `${zipSource}!${memberName} inflates to ${entry.uncompressedSize} bytes, more than the ${formatBytes(MAX_DATASET_MEMBER_BYTES)} a data set member may be`,
            memberName,
          ),
        );
      }
      // A plain deflated member is inflated here rather than by yauzl, in larger pieces.
      const deflated = entry.compressionMethod === 8 && !entry.isEncrypted();
      return new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(entry, { decompress: deflated ? false : null, decrypt: null, start: null, end: null }, (error, stream) => {
          if (error) reject(error);
          else resolve(deflated ? inflateExactly(stream, entry.uncompressedSize, `${zipSource}!${memberName}`, memberName) : stream);
        }),
      );
    },
    // The ZIP is read in pieces where its members are, not start to end: its digest is taken apart.
    digestOf: () => undefined,
    close: () => zip.close(),
  };
}

/**
 * Inflated bytes are handed on in pieces of this size. zlib's default, 16 KiB (what yauzl uses),
 * made the stream machinery around each piece cost more than a second per full-size quarter.
 */
const INFLATE_CHUNK_BYTES = 1 << 20;

/**
 * A member's deflated bytes, inflated, checked to come to exactly the size its ZIP entry declares
 * (as yauzl checks it): the declaration that the size cap was checked against cannot lie.
 */
function inflateExactly(deflated: Readable, declaredBytes: number, described: string, memberName: string): Readable {
  let inflated = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      inflated += chunk.length;
      if (inflated > declaredBytes)
        done(new SourceProblem(`${described} inflates to more than the ${declaredBytes} bytes its entry declares`, memberName));
      else done(null, chunk);
    },
    flush(done) {
      if (inflated < declaredBytes)
        done(
          new SourceProblem(`${described} inflates to ${inflated} bytes, fewer than the ${declaredBytes} its entry declares`, memberName),
        );
      else done();
    },
  });
  return pipeline(deflated, createInflateRaw({ chunkSize: INFLATE_CHUNK_BYTES }), counted, () => {});
}
