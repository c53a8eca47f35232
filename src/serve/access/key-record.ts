import { z } from 'zod';
import { TIER_NAMES } from './limits.js';
import { formatZodIssues } from '../../lib/zod-issues.js';

/** Scopes of Profile A (docs/spec.md, Authentication and scopes): one per area. */
export const SCOPES = ['articles:read', 'calendar:read', 'smart-money:read'] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

const TierName = z.enum(TIER_NAMES);

/** One key as the keys file holds it: metadata and a hash, never the secret. */
export const KeyRecord = z
  .object({
    id: z.string().regex(/^key_[0-9a-f]{12}$/, 'must look like key_<12 hex>'),
    name: z.string().min(1).max(200),
    scopes: z.array(Scope).min(1),
    tier: TierName,
    createdAt: z.iso.datetime(),
    revokedAt: z.iso.datetime().nullable(),
    secretSha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters'),
  })
  .strict();
export type KeyRecord = z.infer<typeof KeyRecord>;

/** The record of a new key, for either state store: the secret's id and hash, never the secret. */
export function newKeyRecord(
  input: { name: string; scopes: readonly Scope[]; tier: z.infer<typeof TierName> },
  generated: { id: string; secretSha256: string },
  now: Date,
): KeyRecord {
  return {
    id: generated.id,
    name: input.name,
    scopes: [...new Set(input.scopes)],
    tier: input.tier,
    createdAt: now.toISOString(),
    revokedAt: null,
    secretSha256: generated.secretSha256,
  };
}

const KEY_FILE_FORMAT = 'pdsnap-keys/1';

const KeyFile = z.object({ format: z.literal(KEY_FILE_FORMAT), keys: z.array(KeyRecord) }).strict();

/** A keys file that cannot be used, named by file and JSON location. */
export class KeyFileError extends Error {
  override readonly name = 'KeyFileError';
}

/** Parses the text of a keys file; `label` names the file in errors. */
export function parseKeyFile(text: string, label: string): KeyRecord[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new KeyFileError(`${label}: not valid JSON (${(error as Error).message})`);
  }
  const result = KeyFile.safeParse(json);
  if (!result.success) {
    throw new KeyFileError(`${label}: ${formatZodIssues(result.error)}`);
  }
  const seen = new Set<string>();
  result.data.keys.forEach((key, index) => {
    if (seen.has(key.id)) throw new KeyFileError(`${label}: keys[${index}].id: duplicate id ${key.id}`);
    seen.add(key.id);
  });
  return result.data.keys;
}

export function serializeKeyFile(keys: KeyRecord[]): string {
  return `${JSON.stringify({ format: KEY_FILE_FORMAT, keys }, null, 2)}\n`;
}
