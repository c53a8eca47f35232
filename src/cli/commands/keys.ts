import { Command } from 'commander';
import { z } from 'zod';
import { KeyFileError, SCOPES, Scope, type KeyRecord } from '../../serve/access/key-record.js';
import { TIER_NAMES } from '../../serve/access/limits.js';
import { DEFAULT_KEYS_FILE, KeyNotFoundError, createKey, readKeys, revokeKey } from '../../serve/access/key-store.js';
import { UsageError } from '../errors.js';
import { DirOption, parseOptions } from '../options.js';
import { formatTable, printJson, printLine } from '../output.js';

const KeysFileOption = DirOption(DEFAULT_KEYS_FILE);

const ScopesOption = z.string({ error: 'is required, e.g. articles:read,calendar:read' }).transform((value, ctx): Scope[] => {
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !Scope.safeParse(n).success);
  if (names.length === 0 || unknown.length > 0) {
    ctx.addIssue({ code: 'custom', message: `unknown scope "${unknown.join(',')}"; expected some of ${SCOPES.join(', ')}` });
    return z.NEVER;
  }
  return [...new Set(names as Scope[])];
});

const CreateOptions = z.object({
  keys: KeysFileOption,
  name: z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(200),
  scopes: ScopesOption,
  tier: z.enum(TIER_NAMES, { error: `expected ${TIER_NAMES.join(' or ')}` }).default('member'),
  json: z.boolean().default(false),
});
const ListOptions = z.object({ keys: KeysFileOption, json: z.boolean().default(false) });
const RevokeOptions = z.object({ keys: KeysFileOption, json: z.boolean().default(false) });

export function keysCommand(): Command {
  const keys = new Command('keys')
    .description('create, list and revoke API keys for pdsnap serve (only a hash of each key is stored)')
    .option('--keys <file>', `keys file (default ${DEFAULT_KEYS_FILE})`)
    // main.ts sets exitOverride/output on `keys` after this function returns; nested subcommands
    // only inherit settings when created, so hand them over at dispatch (else a missing option exits 1).
    .hook('preSubcommand', (self, subcommand) => {
      subcommand.copyInheritedSettings(self);
    });

  keys
    .command('create')
    .description('create a key; the key is printed once and cannot be shown again')
    .requiredOption('--name <name>', 'who or what the key is for')
    .requiredOption('--scopes <list>', `comma-separated: ${SCOPES.join(', ')}`)
    .option('--tier <tier>', 'member or premium (default member)')
    .option('--json', 'print JSON to stdout')
    .action(async (_raw, command: Command) => {
      const options = parseOptions(CreateOptions, command.optsWithGlobals());
      const { record, secret } = await keyFileAction(() => createKey(options.keys, options, new Date()));
      process.stderr.write('pdsnap: store this API key now: it is shown once and cannot be recovered (only its hash is kept)\n');
      if (options.json) return printJson({ ...publicView(record), key: secret });
      printLine(`created ${record.id} "${record.name}" (${record.tier}; ${record.scopes.join(',')})`);
      printLine(`key: ${secret}`);
    });

  keys
    .command('list')
    .description('list keys (never their secrets)')
    .option('--json', 'print JSON to stdout')
    .action(async (_raw, command: Command) => {
      const options = parseOptions(ListOptions, command.optsWithGlobals());
      const records = await keyFileAction(() => readKeys(options.keys));
      if (options.json) return printJson({ keysFile: options.keys, keys: records.map(publicView) });
      if (records.length === 0) return printLine(`no keys in ${options.keys}`);
      printLine(
        formatTable(
          ['id', 'name', 'tier', 'scopes', 'created', 'revoked'],
          records.map((r) => [r.id, r.name, r.tier, r.scopes.join(','), r.createdAt, r.revokedAt ?? '']),
        ),
      );
    });

  keys
    .command('revoke')
    .description('revoke a key; a running server refuses it from its next request on')
    .argument('<id>', 'key id, e.g. key_3f2a9c1b7d4e')
    .option('--json', 'print JSON to stdout')
    .action(async (id: string, _raw, command: Command) => {
      const options = parseOptions(RevokeOptions, command.optsWithGlobals());
      const { record, alreadyRevoked } = await keyFileAction(() => revokeKey(options.keys, id, new Date()));
      if (options.json) return printJson({ ...publicView(record), alreadyRevoked });
      printLine(alreadyRevoked ? `${record.id} was already revoked at ${record.revokedAt}` : `revoked ${record.id} at ${record.revokedAt}`);
    });

  return keys;
}

/** Everything about a key except its hash, which has no use outside the server. */
function publicView(record: KeyRecord) {
  const { secretSha256: _hash, ...rest } = record;
  return rest;
}

/** A broken keys file or an unknown id is the user's to fix (exit 3), with the message as is. */
async function keyFileAction<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof KeyFileError || error instanceof KeyNotFoundError) throw new UsageError(error.message);
    throw error;
  }
}
