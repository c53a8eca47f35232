/**
 * Text from source files reaches the terminal in build reports (a rejected record's location and
 * reason, a filer's name in a note). A control character in it could clear the screen, move the
 * cursor or rewrite earlier lines, so text output shows every C0 and C1 control, DEL and the
 * bidirectional overrides as an escape (`\x1b`, `\u202e`). JSON output keeps the text as it is:
 * JSON.stringify escapes controls itself.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** The same for a block of lines: the newlines that separate them stay, everything else is escaped. */
export function escapeControlLines(text: string): string {
  return text.split('\n').map(escapeControl).join('\n');
}
