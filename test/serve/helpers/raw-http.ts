import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes exactly as given (no client normalises the target) and reads the whole answer; the
 * server closes the connection after it (Connection: close, or its own refusal).
 */
export function sendRaw(base: string, bytes: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split === -1) return reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
    socket.write(bytes);
  });
}

/** A GET with the given request target and extra header lines. */
export function rawGet(base: string, target: string, headerLines: string[] = [], method = 'GET'): Promise<RawAnswer> {
  const host = new URL(base).host;
  return sendRaw(base, [`${method} ${target} HTTP/1.1`, `Host: ${host}`, 'Connection: close', ...headerLines, '', ''].join('\r\n'));
}
