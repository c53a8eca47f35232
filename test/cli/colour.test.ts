import { describe, expect, it } from 'vitest';
import { colourWanted } from '../../src/cli/colour.js';

/** A stdout that is a terminal with colours, or a pipe. */
const terminal = { isTTY: true, hasColors: () => true } as unknown as NodeJS.WriteStream;
const pipe = { isTTY: false } as unknown as NodeJS.WriteStream;

describe('colourWanted', () => {
  it('reads FORCE_COLOR as Node.js does: empty, 1, true, 2 and 3 colour even a pipe; any other value colours nothing', () => {
    for (const on of ['', '1', 'true', '2', '3']) expect(colourWanted(pipe, { FORCE_COLOR: on }), on).toBe(true);
    for (const off of ['0', 'false', 'yes', 'always'])
      expect(colourWanted(terminal, { FORCE_COLOR: off, NO_COLOR: undefined }), off).toBe(false);
    expect(colourWanted(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
  });

  it('without FORCE_COLOR, colours a terminal with colours unless NO_COLOR is set, and never a pipe', () => {
    expect(colourWanted(terminal, {})).toBe(true);
    expect(colourWanted(terminal, { NO_COLOR: '1' })).toBe(false);
    expect(colourWanted(pipe, {})).toBe(false);
  });
});
