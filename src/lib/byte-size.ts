const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** A size as people read it in a message: `2 GiB`, `1.5 MiB`, `512 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= GiB && bytes % GiB === 0) return `${bytes / GiB} GiB`;
  if (bytes >= MiB) return `${Math.round((bytes / MiB) * 10) / 10} MiB`;
  return `${bytes} bytes`;
}
