import { request } from 'node:http';

export interface BinaryAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes on the wire, not decoded (fetch would decompress them). */
  body: Buffer;
}

/** A GET (or `method`) with exactly the given headers (no Accept-Encoding unless given), body kept as bytes. */
export function binaryGet(base: string, target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<BinaryAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${target}`, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
