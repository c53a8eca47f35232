import { open } from 'node:fs/promises';
import yauzl from 'yauzl';
import { FormIndexError, readFormIndexFile } from './form-index.js';

/**
 * What each kind of download must be before it replaces the last good copy (docs/sources-fetch.md,
 * Every byte safe): null when it is whole, else why not. `retry`: whether another attempt may do
 * better (a body cut short may come whole next time; a file that is not what it should be will not).
 */
export interface CheckFailure {
  reason: string;
  retry: boolean;
}
export type ContentCheck = (file: string) => Promise<CheckFailure | null>;

const SUBMISSION_END = '</SEC-DOCUMENT>';
/** A full submission's last bytes hold its closing tag, and a little trailing white space at most. */
const TAIL_BYTES = 256;

/**
 * A full submission ends with `</SEC-DOCUMENT>`: one that does not was cut short (or is no
 * submission). Also how `fetch` tells that a submission already on disk is complete.
 */
export async function submissionIsWhole(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_BYTES);
    const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
    return buffer.toString('latin1').trimEnd().endsWith(SUBMISSION_END);
  } finally {
    await handle.close();
  }
}

export const checkSubmission: ContentCheck = async (file) =>
  (await submissionIsWhole(file))
    ? null
    : { reason: `the submission does not end with ${SUBMISSION_END} (cut short, or not a full submission)`, retry: true };

/** A ZIP whose central directory (at its end) can be read: a ZIP cut short has none. */
export const checkZip: ContentCheck = (file) =>
  new Promise((resolve) => {
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, zip) => {
      if (error || zip === undefined) {
        resolve({ reason: `not a readable ZIP: ${error?.message ?? 'no central directory'}`, retry: true });
        return;
      }
      zip.close();
      resolve(null);
    });
  });

/** An index whose header names its columns; the 13F rows are read from it afterwards. */
export const checkFormIndex: ContentCheck = async (file) => {
  try {
    await readFormIndexFile(file, () => false);
    return null;
  } catch (error) {
    if (error instanceof FormIndexError) return { reason: `not an EDGAR form index: ${error.message}`, retry: false };
    throw error;
  }
};
