const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** A size as people read it in a message: `2 GiB`, `1.5 MiB`, `512 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= GiB && bytes % GiB === 0) return `${bytes / GiB} GiB`;
  if (bytes >= MiB) return `${Math.round((bytes / MiB) * 10) / 10} MiB`;
  return `${bytes} bytes`;
}

const UNITS: Record<string, number> = { '': 1, B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 };

/**
 * A size written like `512MiB`, `2GiB`, `64KiB`, or a whole number of bytes, in bytes. Binary
 * units only, so that `1GB` is refused rather than read as something it may not mean.
 */
export function parseByteSize(text: string | number): number {
  if (typeof text === 'number') {
    if (Number.isSafeInteger(text) && text >= 0) return text;
    throw new Error(`${text} is not a whole number of bytes`);
  }
  const match = /^(\d+)\s*(B|KiB|MiB|GiB|TiB)?$/.exec(text.trim());
  const bytes = match ? Number(match[1]) * UNITS[match[2] ?? '']! : Number.NaN;
  if (!Number.isSafeInteger(bytes)) throw new Error(`"${text}" is not a size; write it like 512MiB, 2GiB or a whole number of bytes`);
  return bytes;
}
