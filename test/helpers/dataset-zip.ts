import { createWriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import yazl from 'yazl';

/** Zips a folder of data set TSVs the way the SEC does: the members nested in a folder of the ZIP. */
export async function zipDatasetFolder(folder: string, zipPath: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const name of (await readdir(folder)).sort()) {
    zip.addBuffer(await readFile(path.join(folder, name)), `2026q3_form13f/${name}`, { mtime: new Date('2026-12-01T00:00:00Z') });
  }
  zip.end();
  const out = createWriteStream(zipPath);
  zip.outputStream.pipe(out);
  await finished(out);
}
