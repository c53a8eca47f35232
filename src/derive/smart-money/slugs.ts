import { INVESTOR_SLUG_MAX } from '../../model/smart-money.js';
import { compareText } from '../../lib/text-order.js';

/**
 * Investor slugs for filers that the registry does not name: lowercase ASCII words joined by
 * single hyphens (`^[a-z0-9]+(?:-[a-z0-9]+)*$`), at most 160 characters.
 */

const FALLBACK_SLUG = 'investor';

function trimToLength(slug: string, max: number): string {
  return slug.slice(0, max).replace(/-+$/, '');
}

/** "Berkshire Hathaway Inc." -> "berkshire-hathaway-inc"; accents are folded ("Société" -> "societe"). */
export function slugFromName(name: string, max: number = INVESTOR_SLUG_MAX): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['\u2019]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return trimToLength(slug, max) || FALLBACK_SLUG;
}

export interface SlugCandidate {
  cik: string;
  name: string;
}

function compareCik(a: string, b: string): number {
  // CIKs carry no leading zeros, so a shorter CIK is a smaller number.
  return a.length - b.length || compareText(a, b);
}

function withSuffix(base: string, suffix: string): string {
  return `${trimToLength(base, INVESTOR_SLUG_MAX - suffix.length - 1)}-${suffix}`;
}

/**
 * Unique slugs per CIK. Among filers whose names give the same slug, the lowest CIK keeps the
 * plain slug and the others get `-<cik>`, so a filer's slug does not depend on how many namesakes
 * happen to be in a build; `-2`, `-3`... only resolve the rare clash of a suffixed slug with
 * another filer's name. `reserved` slugs (the registry's) are never handed out.
 * The result depends only on the set of candidates, not on their order.
 */
export function assignInvestorSlugs(candidates: readonly SlugCandidate[], reserved: ReadonlySet<string> = new Set()): Map<string, string> {
  const ordered = [...candidates].sort((a, b) => compareCik(a.cik, b.cik));
  const bases = new Map<string, string>();
  for (const candidate of ordered) if (!bases.has(candidate.cik)) bases.set(candidate.cik, slugFromName(candidate.name));

  const taken = new Set(reserved);
  const slugs = new Map<string, string>();
  const waiting: string[] = [];
  for (const [cik, base] of bases) {
    if (taken.has(base)) waiting.push(cik);
    else {
      taken.add(base);
      slugs.set(cik, base);
    }
  }
  for (const cik of waiting) {
    const first = withSuffix(bases.get(cik)!, cik);
    let slug = first;
    for (let n = 2; taken.has(slug); n += 1) slug = withSuffix(first, String(n));
    taken.add(slug);
    slugs.set(cik, slug);
  }
  return slugs;
}
