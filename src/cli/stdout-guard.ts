/**
 * `pdsnap build | head -1`: the reader goes away, the next write fails with EPIPE, and Node turns
 * that into an uncaught exception and a stack trace. A closed stdout (or stderr) is not an error of
 * the command: further output to it is dropped and the command finishes its work (a build still
 * publishes) and ends with its own exit code.
 */
const closed = new Set<NodeJS.WriteStream>();
let guarded = false;

/** Once per process: main runs more than once in one process under the tests (test/helpers/cli.ts). */
export function guardOutputStreams(): void {
  if (guarded) return;
  guarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') {
        closed.add(stream);
        return;
      }
      throw error;
    });
  }
}

/** Writes unless the reader has gone. */
export function writeTo(stream: NodeJS.WriteStream, text: string): void {
  if (closed.has(stream) || stream.destroyed) return;
  stream.write(text);
}
