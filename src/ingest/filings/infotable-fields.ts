import { ByteValueCache } from '../../lib/byte-value-cache.js';
import { SourceProblem } from '../source-problem.js';
import { readAccession, readAmountType, readNonNegativeNumber, readPutCall } from './filing-fields.js';
import type { PreparedSecurity } from './filing-intake.js';
import type { TsvLineView } from './tsv-scanner.js';

/** The INFOTABLE columns Smart Money reads; every other column is never decoded. */
export const INFOTABLE_COLUMNS = [
  'ACCESSION_NUMBER',
  'NAMEOFISSUER',
  'TITLEOFCLASS',
  'CUSIP',
  'VALUE',
  'SSHPRNAMT',
  'SSHPRNAMTTYPE',
  'PUTCALL',
] as const;
type Column = (typeof INFOTABLE_COLUMNS)[number];

/** A value read from a field, or the problem that reading it found (remembered like a value). */
export type Read<T> = T | SourceProblem;

/** Runs a field reader, keeping a SourceProblem as its result instead of throwing it. */
export function reading<T, A extends unknown[] = [string]>(read: (...args: A) => T): (...args: A) => Read<T> {
  return (...args) => {
    try {
      return read(...args);
    } catch (error) {
      if (error instanceof SourceProblem) return error;
      throw error;
    }
  };
}

export function settle<T>(value: Read<T>): T {
  if (value instanceof SourceProblem) throw new SourceProblem(value.message);
  return value;
}

/**
 * The issuer name, title of class and CUSIP of a row, read together: they are one security, the
 * same triple on every row that holds it. `prepared` is for the reader, which keeps there what it
 * made of the security the first time it staged it (FilingIntake.prepareSecurity).
 */
export interface SecurityFields {
  readonly issuerName: Read<string>;
  readonly titleOfClass: string;
  readonly cusip: Read<string>;
  prepared: Read<PreparedSecurity> | undefined;
}

/**
 * Reads the fields of INFOTABLE rows straight from the scanned bytes, with the same readers, in
 * the same order and with the same problems as reading decoded text would: each distinct field
 * value (each distinct security) is decoded and read once (ByteValueCache), and numbers written as
 * plain digits are parsed from the bytes without a string.
 */
export class InfotableFields {
  private view: TsvLineView | null = null;
  private readonly tabs: Int32Array;
  private readonly position: Record<Column, number>;
  private readonly accessions = new ByteValueCache<Read<string>>();
  private readonly securities = new ByteValueCache<SecurityFields>();
  private readonly putCalls = new ByteValueCache<Read<'put' | 'call' | null>>();
  private readonly amountTypes = new ByteValueCache<Read<'SH' | 'PRN'>>();
  /** The field bounds of the security columns of the current row, for getJoined. */
  private readonly securityBounds = new Int32Array(6);
  private readonly securityColumns: Int32Array;
  /** The bytes of the last accession read, and what reading it gave. */
  private lastAccessionBytes = Buffer.alloc(32);
  private lastAccessionLength = -1;
  private lastAccession: Read<string> = '';

  constructor(columns: ReadonlyMap<string, number>, tabs: Int32Array) {
    this.tabs = tabs;
    this.position = Object.fromEntries(INFOTABLE_COLUMNS.map((name) => [name, columns.get(name)!])) as Record<Column, number>;
    this.securityColumns = Int32Array.of(this.position.NAMEOFISSUER, this.position.TITLEOFCLASS, this.position.CUSIP);
  }

  /** The row whose fields are read next; `tabs` (given to the constructor) must hold its tab positions. */
  load(view: TsvLineView): void {
    this.view = view;
  }

  accession(): string {
    const bytes = this.view!.bytes;
    const index = this.position.ACCESSION_NUMBER;
    const start = this.fieldStart(index);
    const end = this.fieldEnd(index);
    // The rows of a filing come together: most rows repeat the accession of the row before.
    const last = this.lastAccessionBytes;
    if (end - start === this.lastAccessionLength) {
      let i = start;
      while (i < end && bytes[i] === last[i - start]) i++;
      if (i === end) return settle(this.lastAccession);
    }
    this.lastAccession = this.accessions.get(bytes, start, end, readAccessionField);
    if (end - start > last.length) this.lastAccessionBytes = Buffer.alloc(end - start);
    bytes.copy(this.lastAccessionBytes, 0, start, end);
    this.lastAccessionLength = end - start;
    return settle(this.lastAccession);
  }

  /** The row's security; its issuer name and CUSIP are read results (settle them in that order). */
  security(): SecurityFields {
    const bounds = this.securityBounds;
    const columns = this.securityColumns;
    for (let k = 0; k < 3; k++) {
      bounds[2 * k] = this.fieldStart(columns[k]!);
      bounds[2 * k + 1] = this.fieldEnd(columns[k]!);
    }
    return this.securities.getJoined(this.view!.bytes, bounds, 3, readSecurity);
  }

  putCall(): 'put' | 'call' | null {
    return settle(this.cached(this.putCalls, 'PUTCALL', readPutCallField));
  }

  amountType(): 'SH' | 'PRN' {
    return settle(this.cached(this.amountTypes, 'SSHPRNAMTTYPE', readAmountTypeField));
  }

  /** SSHPRNAMT or VALUE: readNonNegativeNumber's value and problems. */
  number(column: 'SSHPRNAMT' | 'VALUE'): number {
    const view = this.view!;
    const index = this.position[column];
    const start = this.fieldStart(index);
    const end = this.fieldEnd(index);
    const bytes = view.bytes;
    // Up to 15 plain digits are exactly the integer Number() reads, and below MAX_SAFE_INTEGER.
    if (end > start && end - start <= 15) {
      let value = 0;
      let i = start;
      for (; i < end; i++) {
        const digit = bytes[i]! - 0x30;
        if (digit < 0 || digit > 9) break;
        value = value * 10 + digit;
      }
      if (i === end) return value;
    }
    return readNonNegativeNumber(bytes.toString('utf8', start, end), column);
  }

  private cached<T>(cache: ByteValueCache<T>, column: Column, read: (text: string) => T): T {
    const index = this.position[column];
    return cache.get(this.view!.bytes, this.fieldStart(index), this.fieldEnd(index), read);
  }

  private fieldStart(index: number): number {
    return index === 0 ? this.view!.start : this.tabs[index - 1]! + 1;
  }

  /** Rows reach here only with as many fields as the header, so the last field ends the line. */
  private fieldEnd(index: number): number {
    return index < this.tabs.length ? this.tabs[index]! : this.view!.end;
  }
}

const readAccessionField = reading(readAccession);

const readIssuerName = reading((text) => {
  const name = text.trim();
  if (name === '') throw new SourceProblem('NAMEOFISSUER is empty');
  return name;
});

const readCusip = reading((text) => {
  const cusip = text.trim().toUpperCase();
  if (cusip === '') throw new SourceProblem('CUSIP is empty');
  return cusip;
});

function readSecurity([issuerName, titleOfClass, cusip]: readonly string[]): SecurityFields {
  return { issuerName: readIssuerName(issuerName!), titleOfClass: titleOfClass!.trim(), cusip: readCusip(cusip!), prepared: undefined };
}

const readPutCallField = reading(readPutCall);
const readAmountTypeField = reading(readAmountType);
