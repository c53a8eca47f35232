import { ByteValueCache } from '../../lib/byte-value-cache.js';
import { SourceProblem } from '../source-problem.js';
import { readAccession, readAmountType, readNonNegativeNumber, readPutCall } from './filing-fields.js';
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
type Read<T> = T | SourceProblem;

/** Runs a field reader, keeping a SourceProblem as its result instead of throwing it. */
function reading<T>(read: (text: string) => T): (text: string) => Read<T> {
  return (text) => {
    try {
      return read(text);
    } catch (error) {
      if (error instanceof SourceProblem) return error;
      throw error;
    }
  };
}

function settle<T>(value: Read<T>): T {
  if (value instanceof SourceProblem) throw new SourceProblem(value.message);
  return value;
}

/**
 * Reads the fields of INFOTABLE rows straight from the scanned bytes, with the same readers, in
 * the same order and with the same problems as reading decoded text would: each distinct field
 * value is decoded and read once (ByteValueCache), and numbers written as plain digits are parsed
 * from the bytes without a string.
 */
export class InfotableFields {
  private view: TsvLineView | null = null;
  private readonly tabs: Int32Array;
  private readonly position: Record<Column, number>;
  private readonly accessions = new ByteValueCache<Read<string>>();
  private readonly issuers = new ByteValueCache<Read<string>>();
  private readonly titles = new ByteValueCache<string>();
  private readonly cusips = new ByteValueCache<Read<string>>();
  private readonly putCalls = new ByteValueCache<Read<'put' | 'call' | null>>();
  private readonly amountTypes = new ByteValueCache<Read<'SH' | 'PRN'>>();

  constructor(columns: ReadonlyMap<string, number>, tabs: Int32Array) {
    this.tabs = tabs;
    this.position = Object.fromEntries(INFOTABLE_COLUMNS.map((name) => [name, columns.get(name)!])) as Record<Column, number>;
  }

  /** The row whose fields are read next; `tabs` (given to the constructor) must hold its tab positions. */
  load(view: TsvLineView): void {
    this.view = view;
  }

  accession(): string {
    return settle(this.cached(this.accessions, 'ACCESSION_NUMBER', readAccessionField));
  }

  issuerName(): string {
    return settle(this.cached(this.issuers, 'NAMEOFISSUER', readIssuerName));
  }

  titleOfClass(): string {
    return this.cached(this.titles, 'TITLEOFCLASS', trimText);
  }

  cusip(): string {
    return settle(this.cached(this.cusips, 'CUSIP', readCusip));
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

const trimText = (text: string): string => text.trim();
const readPutCallField = reading(readPutCall);
const readAmountTypeField = reading(readAmountType);
