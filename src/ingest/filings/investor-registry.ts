import { z } from 'zod';
import type { InvestorRegistryEntry } from '../../model/filing.js';
import type { BuildNote, Rejection } from '../../model/report.js';
import { stripSecurityIdentifiers } from '../../model/security-identifiers.js';
import { Slug } from '../../model/primitives.js';
import { INVESTOR_SLUG_MAX } from '../../model/smart-money.js';
import { zodPath } from '../../lib/zod-issues.js';
import { UnreadableSource } from '../source-files.js';
import { fieldWithNul, nulProblem } from '../text-fields.js';
import { parseYamlText, YamlTextError } from '../yaml-text.js';

/**
 * `filings/investors.yaml`: the tracked investors, either as a top-level list or under
 * `investors:`. Each entry: cik (digits, leading zeros allowed), slug, name, category (a slug,
 * e.g. hedge-fund, pension, asset-manager). A bad entry, or one repeating a CIK or slug, is
 * rejected on its own. A file that cannot be read as a registry (not YAML, an alias bomb, no list)
 * is an UnreadableSource: the dataset fails naming it, rather than publishing nobody or everybody.
 * A name is published as written, less any CUSIP, ISIN or FIGI typed into it (noted); a name that
 * is only an identifier is rejected.
 */
const RegistryEntry = z
  .object({
    cik: z
      .union([z.string(), z.number().int().nonnegative()])
      .transform((cik) => String(cik).trim())
      .pipe(z.string().regex(/^\d{1,10}$/, 'expected 1 to 10 digits')),
    slug: Slug(INVESTOR_SLUG_MAX),
    name: z.string().trim().min(1),
    category: Slug(80),
  })
  .strict();

export function parseInvestorRegistry(
  text: string,
  source: string,
): { entries: InvestorRegistryEntry[]; rejections: Rejection[]; notes: BuildNote[] } {
  const rejections: Rejection[] = [];
  const notes: BuildNote[] = [];
  let root: unknown;
  try {
    root = parseYamlText(text);
  } catch (error) {
    if (!(error instanceof YamlTextError)) throw error;
    throw new UnreadableSource(source, `not valid YAML: ${error.message}`, error.line === undefined ? 'file' : `line ${error.line}`);
  }
  const list = Array.isArray(root) ? root : root && typeof root === 'object' ? (root as { investors?: unknown }).investors : undefined;
  if (!Array.isArray(list)) throw new UnreadableSource(source, 'expected a list of investors, or an `investors:` list');
  const entries: InvestorRegistryEntry[] = [];
  const byCik = new Map<string, number>();
  const bySlug = new Map<string, number>();
  list.forEach((item, index) => {
    const location = `investors[${index}]`;
    const nul = fieldWithNul(item);
    if (nul !== undefined) {
      rejections.push({ source, location: `${location}.${nul}`, reason: nulProblem(nul) });
      return;
    }
    const parsed = RegistryEntry.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      rejections.push({ source, location: zodPath(issue.path, location), reason: issue.message });
      return;
    }
    const stripped = stripSecurityIdentifiers(parsed.data.name);
    if (stripped.name === '') {
      rejections.push({
        source,
        location: `${location}.name`,
        reason: `name ${JSON.stringify(parsed.data.name)} is only a security identifier`,
      });
      return;
    }
    if (stripped.removed.length > 0) {
      const kinds = [...new Set(stripped.removed.map((span) => span.kind))].join(' and ');
      notes.push({
        source,
        message: `${location}.name ${JSON.stringify(parsed.data.name)} read as ${JSON.stringify(stripped.name)}: ${kinds} removed, never published`,
      });
    }
    const entry = { ...parsed.data, name: stripped.name, cik: parsed.data.cik.replace(/^0+(?=\d)/, '') };
    const sameCik = byCik.get(entry.cik);
    const sameSlug = bySlug.get(entry.slug);
    if (sameCik !== undefined || sameSlug !== undefined) {
      rejections.push({
        source,
        location,
        reason:
          sameCik !== undefined
            ? `cik ${entry.cik} is already listed at investors[${sameCik}]`
            : `slug ${entry.slug} is already listed at investors[${sameSlug}]`,
      });
      return;
    }
    byCik.set(entry.cik, index);
    bySlug.set(entry.slug, index);
    entries.push(entry);
  });
  return { entries, rejections, notes };
}
