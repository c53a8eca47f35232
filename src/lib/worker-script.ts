/**
 * The script of a worker thread that sits beside the calling module (`moduleUrl`, its
 * import.meta.url): in dist/src beside the compiled module, and in the bundle an entry of its own in
 * the chunks folder (rolldown.config.ts). Run from its TypeScript source (the test runner), the caller
 * has no script Node can start: null, and the work is done on the calling thread.
 */
export function workerScriptBeside(fileName: string, moduleUrl: string): URL | null {
  return moduleUrl.endsWith('.ts') ? null : new URL(`./${fileName}`, moduleUrl);
}
