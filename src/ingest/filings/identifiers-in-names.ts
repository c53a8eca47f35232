import type { BuildNote } from '../../model/report.js';
import { stripSecurityIdentifiers } from '../../model/security-identifiers.js';
import { SourceProblem } from '../source-problem.js';

/** The names of a filing that Smart Money publishes. */
export type NameField = 'issuer name' | 'title of class' | 'filer name';

export interface NameChange {
  field: NameField;
  from: string;
  to: string;
  kinds: string;
  /** Where the first committed filing carrying it came from. */
  source: string;
  accession: string;
  rows: number;
  filings: number;
}

/**
 * Filers type CUSIPs, ISINs and FIGIs into names (`WPP PLC NEW ADR ISIN#US92937A1025`); a
 * published name must never carry one, so ingest takes them out and the build report says so.
 *
 * Names repeat across millions of rows, so each distinct text is looked at once. Changes are
 * counted per staged filing and only kept when the filing is committed: a rejected filing's
 * names are not reported as published. One note per distinct change, with its row and filing
 * counts.
 */
export class IdentifiersInNames {
  private readonly cleanedTexts = new Map<string, string>();
  private readonly pending = new Map<number, Map<string, number>>();
  private readonly changes = new Map<string, NameChange>();

  /** The name without identifiers; throws when nothing else is left (a required name must stay). */
  clean(stagingId: number, field: NameField, text: string, required: boolean): string {
    const result = this.cleaned(field, text, required);
    if (result !== text) this.countChange(stagingId, field, text);
    return result;
  }

  /**
   * `clean` without counting the change: what the name becomes, the same for every row that
   * carries it. A caller that keeps the result calls countChange for each row it is used in.
   */
  cleaned(field: NameField, text: string, required: boolean): string {
    let result = this.cleanedTexts.get(text);
    if (result === undefined) {
      result = stripSecurityIdentifiers(text).name;
      this.cleanedTexts.set(text, result);
    }
    if (result === '' && required && text !== '') {
      throw new SourceProblem(`${field} ${JSON.stringify(text)} is only a security identifier; there is no name to publish`);
    }
    return result;
  }

  /** Counts one row (or filing) of the staged filing that carries `text`, which cleaning changes. */
  countChange(stagingId: number, field: NameField, text: string): void {
    const key = `${field}\n${text}`;
    let counts = this.pending.get(stagingId);
    if (counts === undefined) {
      counts = new Map();
      this.pending.set(stagingId, counts);
    }
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  /** The filing's changes count from now on. */
  commit(stagingId: number, source: string, accession: string): void {
    const counts = this.pending.get(stagingId);
    if (counts === undefined) return;
    this.pending.delete(stagingId);
    for (const [key, rows] of counts) {
      const known = this.changes.get(key);
      if (known) {
        known.rows += rows;
        known.filings += 1;
        continue;
      }
      const [field, from] = key.split('\n') as [NameField, string];
      const stripped = stripSecurityIdentifiers(from);
      const kinds = [...new Set(stripped.removed.map((span) => span.kind))].join(' and ');
      this.changes.set(key, { field, from, to: stripped.name, kinds, source, accession, rows, filings: 1 });
    }
  }

  discard(stagingId: number): void {
    this.pending.delete(stagingId);
  }

  /** The changes of committed filings, in the order first committed (for absorb() in another thread). */
  committedChanges(): NameChange[] {
    return [...this.changes.values()];
  }

  /** Counts changes committed elsewhere after this one's own, as if their filings were committed here. */
  absorb(changes: readonly NameChange[]): void {
    for (const change of changes) {
      const key = `${change.field}\n${change.from}`;
      const known = this.changes.get(key);
      if (known) {
        known.rows += change.rows;
        known.filings += change.filings;
      } else {
        this.changes.set(key, { ...change });
      }
    }
  }

  /** One note per distinct change, in the order first committed. */
  notes(): BuildNote[] {
    return [...this.changes.values()].map((change) => {
      const used = change.field === 'filer name' ? `${change.filings} filing(s)` : `${change.rows} row(s) in ${change.filings} filing(s)`;
      return {
        source: change.source,
        message: `${change.field} ${JSON.stringify(change.from)} read as ${JSON.stringify(change.to)}: ${change.kinds} removed, never published (${used}; first in filing ${change.accession})`,
      };
    });
  }
}
