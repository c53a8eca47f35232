import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

/**
 * The member files of one Form 13F data set, whether it is the SEC's quarterly ZIP or a folder it
 * was extracted to. Members are found by base name, case-insensitively, also when the ZIP nests
 * them in a folder (e.g. `2026q3_form13f/INFOTABLE.tsv`).
 */
export interface DatasetMembers {
  /** Where a member is, as reports show it: `filings/datasets/x.zip!INFOTABLE.tsv` or the file's path. */
  describe(baseName: string): string;
  has(baseName: string): boolean;
  open(baseName: string): Promise<Readable>;
  close(): void;
}

export function folderMembers(folder: string, files: string[], relative: (file: string) => string): DatasetMembers {
  const byName = new Map(files.map((file) => [path.basename(file).toUpperCase(), file]));
  return {
    describe: (name) => relative(byName.get(name.toUpperCase()) ?? path.join(folder, name)),
    has: (name) => byName.has(name.toUpperCase()),
    open: async (name) => createReadStream(byName.get(name.toUpperCase())!),
    close: () => {},
  };
}

export async function zipMembers(zipPath: string, zipSource: string): Promise<DatasetMembers> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(zipPath, { lazyEntries: true, autoClose: false }, (error, file) => (error ? reject(error) : resolve(file))),
  );
  const entries = new Map<string, yauzl.Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith('/')) {
        const name = path.posix.basename(entry.fileName).toUpperCase();
        if (!entries.has(name)) entries.set(name, entry);
      }
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  return {
    describe: (name) => `${zipSource}!${entries.get(name.toUpperCase())?.fileName ?? name}`,
    has: (name) => entries.has(name.toUpperCase()),
    open: (name) =>
      new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(entries.get(name.toUpperCase())!, (error, stream) => (error ? reject(error) : resolve(stream))),
      ),
    close: () => zip.close(),
  };
}
