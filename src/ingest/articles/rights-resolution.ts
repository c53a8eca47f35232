import type { Attribution, Rights as RightsType } from '../../model/rights.js';
import { Rights } from '../../model/rights.js';
import type { ArticleDraft } from './article-draft.js';
import { REGISTRY_FILE, WrittenAttribution, type RegisteredSource, type SourceRegistry } from './source-registry.js';
import { formatZodIssues } from '../../lib/zod-issues.js';

export type RightsResolution =
  | { ok: true; rights: RightsType; attribution: Attribution; registered?: RegisteredSource }
  | { ok: false; reason: string };

/**
 * Rights and attribution come from the registered source the article names (`source: <id>`), or
 * from complete `rights:` / `attribution:` blocks written beside it; a written block replaces the
 * registry's as a whole (no field-by-field merging, so what is published is what someone wrote).
 * Anything less is unresolvable and the article is rejected: rights are never guessed.
 */
export function resolveRights(draft: ArticleDraft, registry: SourceRegistry): RightsResolution {
  let registered = draft.feedSource;
  if (registered === undefined && draft.sourceId !== undefined) {
    if (typeof draft.sourceId !== 'string' || draft.sourceId.trim() === '') {
      return { ok: false, reason: 'source must be the id of a source in articles/sources.yaml' };
    }
    registered = registry.byId.get(draft.sourceId.trim());
    if (registered === undefined) {
      const why = registry.available ? `not declared in articles/${REGISTRY_FILE}` : `articles/${REGISTRY_FILE} is missing or invalid`;
      return { ok: false, reason: `unknown source "${draft.sourceId}": ${why}` };
    }
  }

  let rights = registered?.rights;
  if (draft.rights !== undefined) {
    const written = Rights.safeParse(draft.rights);
    if (!written.success) return { ok: false, reason: `incomplete rights: ${formatZodIssues(written.error, 'rights')}` };
    rights = written.data;
  }
  let attribution: Attribution | undefined = registered?.attribution;
  if (draft.attribution !== undefined) {
    const written = WrittenAttribution.safeParse(draft.attribution);
    if (!written.success) {
      return { ok: false, reason: `incomplete attribution: ${formatZodIssues(written.error, 'attribution')}` };
    }
    attribution = written.data;
  }

  if (rights === undefined || attribution === undefined) {
    const missing = [rights === undefined ? 'rights' : undefined, attribution === undefined ? 'attribution' : undefined]
      .filter(Boolean)
      .join(' and ');
    return { ok: false, reason: `rights cannot be resolved: no ${missing} (name a registered source or write a complete block)` };
  }
  return registered === undefined ? { ok: true, rights, attribution } : { ok: true, rights, attribution, registered };
}
