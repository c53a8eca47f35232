import { BoundedTextMemo } from '../lib/bounded-text-memo.js';
import { ARTICLE_SLUG_MAX } from './article.js';
import type { DatasetName } from './dataset.js';
import type { RuleResult } from './rule-result.js';
import { SLUG_PATTERN } from './primitives.js';
import { locateSecurityIdentifiers } from './security-identifiers.js';
import { INVESTOR_SLUG_MAX } from './smart-money.js';

/**
 * Content rules on a bundle's records (docs/spec.md, Content rules). Pure: records in, findings
 * out.
 */

export type Resources = Record<string, unknown[]>;

export interface ContentFinding {
  resource: string;
  /** Record index in the resource array. */
  index: number;
  /** Path inside the record, e.g. `positions[3].issuerName`. */
  field: string;
  reason: string;
}

/** Findings listed in a rule's message; the count always covers all of them. */
const LISTED_FINDINGS = 5;

// ---------------------------------------------------------------------------------------------
// Security identifiers

const IDENTIFIER_KEYS = new Set(['cusip', 'figi', 'ticker', 'symbol', 'isin']);

/** CUSIP, FIGI and ISIN tokens in a text (see src/model/security-identifiers.ts for what counts as a token). */
export function identifiersInText(text: string): string[] {
  return locateSecurityIdentifiers(text).map((span) => `${span.kind} ${span.value}`);
}

/** Every published string value and key is searched: an identifier hidden in an issuer name is still published. */
export function findSecurityIdentifiers(resources: Resources): ContentFinding[] {
  const findings: ContentFinding[] = [];
  for (const [resource, records] of Object.entries(resources)) {
    for (const [index, record] of records.entries()) collectIdentifiers(resource, index, record, findings);
  }
  return findings;
}

/**
 * A rule's verdict on a string never changes; at most this many distinct strings, and this many
 * characters of them (article bodies are long), are remembered.
 */
const VERDICTS_KEPT = 1 << 19;
const VERDICT_CHARS_KEPT = 1 << 25;

const NO_IDENTIFIERS: readonly string[] = [];
const identifierVerdicts = new BoundedTextMemo<readonly string[]>(
  (text) => {
    const found = identifiersInText(text);
    return found.length === 0 ? NO_IDENTIFIERS : found;
  },
  VERDICTS_KEPT,
  VERDICT_CHARS_KEPT,
);
const identifierKeys = new BoundedTextMemo((key) => IDENTIFIER_KEYS.has(key.toLowerCase()), VERDICTS_KEPT);

// Lengths that rule most strings and keys out without a lookup (a full-size bundle has tens of
// millions of each): the shortest identifier is a CUSIP's 9 characters, and the identifier keys
// are 4 to 6 characters long.
const SHORTEST_IDENTIFIER = 9;
const KEY_LENGTHS = [...IDENTIFIER_KEYS].map((key) => key.length);
const SHORTEST_KEY = Math.min(...KEY_LENGTHS);
const LONGEST_KEY = Math.max(...KEY_LENGTHS);
const mayBeIdentifierKey = (key: string) => key.length >= SHORTEST_KEY && key.length <= LONGEST_KEY && identifierKeys.of(key);

/** One record's walk: where findings go, and the path to the value visited (keys and indexes). */
interface IdentifierWalk {
  resource: string;
  index: number;
  findings: ContentFinding[];
  path: Array<string | number>;
}

/** `positions[3].issuerName`: built only for a finding, so a clean record costs no strings. */
function fieldPath(path: ReadonlyArray<string | number>): string {
  let field = '';
  for (const segment of path) field = typeof segment === 'number' ? `${field}[${segment}]` : field ? `${field}.${segment}` : segment;
  return field;
}

/** Top-level keys whose last clean string is remembered; records have a dozen or so. */
const CLEAN_KEYS_KEPT = 64;

/**
 * `cleanBefore`, when given, holds the latest clean top-level string of each key:
 * consecutive records repeat most of them (a trade's investor and periods), and comparing with the
 * string before is cheaper than a memo lookup, which must hash a string fresh from JSON.parse.
 * `walk`, when given, is reused (its path is empty between records), so that checking a record
 * makes no object.
 */
function collectIdentifiers(
  resource: string,
  index: number,
  record: unknown,
  findings: ContentFinding[],
  cleanBefore?: Map<string, string>,
  walk: IdentifierWalk = { resource, index, findings, path: [] },
): void {
  walk.resource = resource;
  walk.index = index;
  walk.findings = findings;
  walk.path.length = 0;
  if (record !== null && typeof record === 'object' && !Array.isArray(record)) visitObject(walk, record, cleanBefore);
  else visitValue(walk, record);
}

function visitValue(walk: IdentifierWalk, value: unknown): void {
  if (typeof value === 'string') {
    if (value.length < SHORTEST_IDENTIFIER) return;
    const found = identifierVerdicts.of(value);
    if (found.length === 0) return;
    const field = fieldPath(walk.path);
    for (const what of found) walk.findings.push({ resource: walk.resource, index: walk.index, field, reason: `${what} in the text` });
  } else if (Array.isArray(value)) {
    const path = walk.path;
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      visitValue(walk, value[i]);
      path.pop();
    }
  } else if (value !== null && typeof value === 'object') {
    visitObject(walk, value, undefined);
  }
}

function visitObject(walk: IdentifierWalk, object: object, cleanBefore: Map<string, string> | undefined): void {
  const { path, findings } = walk;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const inner = (object as Record<string, unknown>)[key];
    path.push(key);
    if (mayBeIdentifierKey(key)) {
      findings.push({ resource: walk.resource, index: walk.index, field: fieldPath(path), reason: `a field named "${key}"` });
    }
    if (cleanBefore !== undefined && typeof inner === 'string') {
      if (cleanBefore.get(key) !== inner) {
        const before = findings.length;
        visitValue(walk, inner);
        if (findings.length !== before) cleanBefore.delete(key);
        else {
          // Records of one resource share their keys; a record of keys never seen before (one
          // that fails its schema, in validate) must not make the map grow with the bundle.
          if (cleanBefore.size >= CLEAN_KEYS_KEPT && !cleanBefore.has(key)) cleanBefore.clear();
          cleanBefore.set(key, inner);
        }
      }
    } else {
      visitValue(walk, inner);
    }
    path.pop();
  }
}

// ---------------------------------------------------------------------------------------------
// Consensus page size

const CONSENSUS_PAGE_ROWS = 10;
export const MAX_CONSENSUS_PAGE_BYTES = 512 * 1024;
/** The longest values the envelope can carry (docs/spec.md, Paging and size limits: cursor 1..2048; a UUID request id). */
const WORST_CASE_CURSOR_LENGTH = 2048;
const WORST_CASE_REQUEST_ID_LENGTH = 36;

export interface SnapshotRef {
  id: string;
  generatedAt: string;
}

export interface ConsensusPageSize {
  bytes: number;
  /** Index of the first row of the largest page in consensus.json (0-based). */
  firstRow: number;
  rows: number;
}

/**
 * The largest encoded Profile A consensus page: every window of 10 consecutive rows (a cursor may
 * start a page at any row) wrapped in the list envelope with the longest cursor and request id.
 * Bytes are UTF-8 bytes of JSON.stringify, what the server sends.
 */
export function largestConsensusPage(rows: unknown[], snapshot: SnapshotRef): ConsensusPageSize {
  const envelope = {
    data: [],
    page: { limit: CONSENSUS_PAGE_ROWS, nextCursor: 'c'.repeat(WORST_CASE_CURSOR_LENGTH) },
    snapshot: { id: snapshot.id, generatedAt: snapshot.generatedAt },
    requestId: 'r'.repeat(WORST_CASE_REQUEST_ID_LENGTH),
  };
  const overhead = Buffer.byteLength(JSON.stringify(envelope));
  const sizes = rows.map((row) => Buffer.byteLength(JSON.stringify(row)));
  const window = Math.min(CONSENSUS_PAGE_ROWS, sizes.length);
  const pageBytes = (rowBytes: number, n: number) => overhead + rowBytes + Math.max(0, n - 1); // commas between rows
  let sum = sizes.slice(0, window).reduce((a, b) => a + b, 0);
  let best: ConsensusPageSize = { bytes: pageBytes(sum, window), firstRow: 0, rows: window };
  for (let start = 1; start + window <= sizes.length; start++) {
    sum += sizes[start + window - 1]! - sizes[start - 1]!;
    const bytes = pageBytes(sum, window);
    if (bytes > best.bytes) best = { bytes, firstRow: start, rows: window };
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// Slugs

interface SlugSite {
  resource: string;
  /** Calls `visit` with the field and value of each slug of a record, making nothing per record. */
  eachSlug: (record: Record<string, unknown>, visit: (field: string | (() => string), value: unknown) => void) => void;
  maxLength: number;
}

const SLUG_SITES: Partial<Record<DatasetName, SlugSite[]>> = {
  articles: [{ resource: 'articles', eachSlug: (r, visit) => visit('slug', r.slug), maxLength: ARTICLE_SLUG_MAX }],
  'smart-money': [
    { resource: 'investors', eachSlug: (r, visit) => visit('slug', r.slug), maxLength: INVESTOR_SLUG_MAX },
    { resource: 'trades', eachSlug: (r, visit) => visit('investorSlug', r.investorSlug), maxLength: INVESTOR_SLUG_MAX },
    {
      resource: 'consensus',
      eachSlug: (r, visit) => {
        if (!Array.isArray(r.topHolders)) return;
        r.topHolders.forEach((slug, i) => {
          visit(() => `topHolders[${i}]`, slug);
        });
      },
      maxLength: INVESTOR_SLUG_MAX,
    },
  ],
};

function hasSlugRule(dataset: DatasetName): boolean {
  return SLUG_SITES[dataset] !== undefined;
}

/** Article slugs (at most 200) and investor slugs (at most 160) must match ^[a-z0-9]+(?:-[a-z0-9]+)*$. */
export function findSlugProblems(dataset: DatasetName, resources: Resources): ContentFinding[] {
  const findings: ContentFinding[] = [];
  for (const [resource, records] of Object.entries(resources)) {
    for (const [index, record] of records.entries()) collectSlugProblems(dataset, resource, index, record, findings);
  }
  return findings;
}

const slugVerdicts = new BoundedTextMemo((slug) => SLUG_PATTERN.test(slug), VERDICTS_KEPT);

/** Where the slug being visited belongs: one object for every record (checks run one record at a time). */
const slugVisit = { resource: '', index: 0, findings: [] as ContentFinding[], maxLength: 0 };

function visitSlug(at: string | (() => string), value: unknown): void {
  const { maxLength } = slugVisit;
  if (typeof value !== 'string') slugFinding(at, 'slug is not a string');
  else if (value.length > maxLength) slugFinding(at, `slug has ${value.length} characters; at most ${maxLength}`);
  else if (!slugVerdicts.of(value)) slugFinding(at, `slug "${value}" does not match ${SLUG_PATTERN.source}`);
}

/** The field's name is made only for a finding. */
function slugFinding(at: string | (() => string), reason: string): void {
  const { resource, index, findings } = slugVisit;
  findings.push({ resource, index, field: typeof at === 'string' ? at : at(), reason });
}

function collectSlugProblems(dataset: DatasetName, resource: string, index: number, record: unknown, findings: ContentFinding[]): void {
  if (record === null || typeof record !== 'object') return;
  for (const site of SLUG_SITES[dataset] ?? []) {
    if (site.resource !== resource) continue;
    slugVisit.resource = resource;
    slugVisit.index = index;
    slugVisit.findings = findings;
    slugVisit.maxLength = site.maxLength;
    site.eachSlug(record as Record<string, unknown>, visitSlug);
  }
}

// ---------------------------------------------------------------------------------------------
// As report rules

export function describeFinding(finding: ContentFinding): string {
  return `${finding.resource} record ${finding.index}${finding.field ? ` field ${finding.field}` : ''}: ${finding.reason}`;
}

function findingsRule(dataset: DatasetName, rule: string, limit: string, what: string, findings: ContentFinding[]): RuleResult {
  if (findings.length === 0) {
    return { rule, observed: 'none', limit, status: 'pass', failsAt: null, message: `${dataset}: no ${what}` };
  }
  const listed = findings.slice(0, LISTED_FINDINGS).map(describeFinding).join('; ');
  const more = findings.length > LISTED_FINDINGS ? `; and ${findings.length - LISTED_FINDINGS} more` : '';
  return {
    rule,
    observed: `${findings.length} found`,
    limit,
    status: 'fail',
    failsAt: null,
    message: `${dataset}: ${findings.length} ${what}: ${listed}${more}`,
  };
}

/** What a ContentCheck has seen and found, as plain data that can move between threads. */
export interface ContentCheckState {
  identifiers: ContentFinding[];
  slugs: ContentFinding[];
  consensus: unknown[];
  counts: Array<[string, number]>;
}

/**
 * The content rules fed one record at a time, so that `build` can check records while it streams
 * them into a staged bundle, and `validate` can check a loaded one, with the same code.
 */
export class ContentCheck {
  private readonly identifiers: ContentFinding[];
  private readonly slugs: ContentFinding[];
  private readonly consensus: unknown[];
  private readonly counts: Map<string, number>;
  /** Per resource, the previous record's clean top-level strings (collectIdentifiers). */
  private readonly cleanBefore = new Map<string, Map<string, string>>();
  /** The walk every record's identifier check reuses. */
  private readonly walk: IdentifierWalk = { resource: '', index: 0, findings: [], path: [] };

  constructor(
    private readonly dataset: DatasetName,
    state: ContentCheckState = { identifiers: [], slugs: [], consensus: [], counts: [] },
  ) {
    this.identifiers = state.identifiers;
    this.slugs = state.slugs;
    this.consensus = state.consensus;
    this.counts = new Map(state.counts);
  }

  /** Everything needed to go on or to give the results elsewhere (new ContentCheck(dataset, state)). */
  state(): ContentCheckState {
    return { identifiers: this.identifiers, slugs: this.slugs, consensus: this.consensus, counts: [...this.counts] };
  }

  inspect(resource: string, record: unknown): void {
    const index = this.counts.get(resource) ?? 0;
    this.counts.set(resource, index + 1);
    let cleanBefore = this.cleanBefore.get(resource);
    if (cleanBefore === undefined) {
      cleanBefore = new Map();
      this.cleanBefore.set(resource, cleanBefore);
    }
    collectIdentifiers(resource, index, record, this.identifiers, cleanBefore, this.walk);
    collectSlugProblems(this.dataset, resource, index, record, this.slugs);
    if (resource === 'consensus') this.consensus.push(record);
  }

  /**
   * Takes in what another check found over the records that come after those inspected here (a
   * batch checked on another thread): its records are numbered on from here, per resource.
   */
  absorb(other: ContentCheckState): void {
    const shifted = (finding: ContentFinding) => ({ ...finding, index: finding.index + (this.counts.get(finding.resource) ?? 0) });
    // Loops, not push(...): a batch of bad records can have more findings than a call takes arguments.
    for (const finding of other.identifiers) this.identifiers.push(shifted(finding));
    for (const finding of other.slugs) this.slugs.push(shifted(finding));
    for (const record of other.consensus) this.consensus.push(record);
    for (const [resource, count] of other.counts) this.counts.set(resource, (this.counts.get(resource) ?? 0) + count);
  }

  /** content.identifiers, content.consensus-page-size (smart-money) and content.slugs (articles, smart-money). */
  results(snapshot: SnapshotRef): RuleResult[] {
    const { dataset } = this;
    const results = [
      findingsRule(
        dataset,
        'content.identifiers',
        'none (CUSIP, FIGI, ISIN, id fields)',
        'security identifier(s) in published records',
        this.identifiers,
      ),
    ];
    if (dataset === 'smart-money') {
      const page = largestConsensusPage(this.consensus, snapshot);
      const ok = page.bytes <= MAX_CONSENSUS_PAGE_BYTES;
      const rows = page.rows === 0 ? 'no rows' : `rows ${page.firstRow + 1}-${page.firstRow + page.rows}`;
      results.push({
        rule: 'content.consensus-page-size',
        observed: `${page.bytes} bytes (${rows})`,
        limit: `at most ${MAX_CONSENSUS_PAGE_BYTES} bytes (512 KiB) a page`,
        status: ok ? 'pass' : 'fail',
        failsAt: null,
        message: `smart-money: the largest consensus page (${rows}, with a ${WORST_CASE_CURSOR_LENGTH}-char cursor) encodes to ${page.bytes} bytes${ok ? '' : `, over ${MAX_CONSENSUS_PAGE_BYTES}`}`,
      });
    }
    if (hasSlugRule(dataset)) {
      const max = dataset === 'articles' ? ARTICLE_SLUG_MAX : INVESTOR_SLUG_MAX;
      results.push(findingsRule(dataset, 'content.slugs', `a-z0-9 words joined by -, at most ${max} chars`, 'bad slug(s)', this.slugs));
    }
    return results;
  }
}

/** The content rules over a whole loaded bundle. */
export function evaluateContentRules(dataset: DatasetName, resources: Resources, snapshot: SnapshotRef): RuleResult[] {
  const check = new ContentCheck(dataset);
  for (const [resource, records] of Object.entries(resources)) for (const record of records) check.inspect(resource, record);
  return check.results(snapshot);
}
