/**
 * Decodes a source file. Provider XML exports often declare `encoding="windows-1252"`; honouring
 * the declaration keeps accented titles intact. Everything else is UTF-8 (a BOM is dropped).
 */
export function decodeSourceText(content: Buffer, extension: string): string {
  if (extension === 'xml') {
    const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(content.subarray(0, 200).toString('latin1'));
    const label = declared?.[1]?.toLowerCase();
    if (label && label !== 'utf-8' && label !== 'utf8') {
      try {
        return new TextDecoder(label).decode(content);
      } catch {
        // An encoding Node does not know: fall back to UTF-8 rather than fail the file.
      }
    }
  }
  return new TextDecoder('utf-8').decode(content);
}
