import { Command } from 'commander';
import { printNotice, withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import { SCOPES, Scope, type KeyRecord } from '../../serve/access/key-record.js';
import { TIER_NAMES } from '../../serve/access/limits.js';
import { DEFAULT_KEYS_FILE, KeyStore } from '../../serve/access/key-store.js';
import type { KeyDirectory } from '../../serve/access/state-store.js';
import { DEFAULT_USAGE_DB } from '../../serve/access/usage-store.js';
import { DirOption, parseOptions } from '../options.js';
import { withPathDefaults } from '../path-options.js';
import { clockNow } from '../../lib/clock.js';
import { formatTable, printJson, printLine } from '../output.js';
import { STATE_OPTION_HELP, openStateForCommand, stateLocationOf, userErrors } from '../state-option.js';

const KeysFileOption = DirOption(DEFAULT_KEYS_FILE);
const StateOption = z.string().optional();

const ScopesOption = z.string({ error: 'is required, e.g. articles:read,calendar:read' }).transform((value, ctx): Scope[] => {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
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
  state: StateOption,
  config: z.string().optional(),
  json: z.boolean().default(false),
});
const ListOptions = z.object({ keys: KeysFileOption, state: StateOption, config: z.string().optional(), json: z.boolean().default(false) });
const RevokeOptions = ListOptions;

/**
 * Runs `work` on the keys of --state (the keys file by default, or Redis), closing what it opened.
 * `where` says where they are, for output: the keys file, or the redacted Redis URL.
 */
async function withKeys<T>(
  command: Command,
  options: { keys: string; state?: string | undefined },
  work: (keys: KeyDirectory, where: { keysFile: string } | { state: string }) => Promise<T>,
): Promise<T> {
  const keysGiven = command.optsWithGlobals().keys !== undefined ? ['--keys'] : [];
  const location = stateLocationOf(options.state, keysGiven);
  // The keys file alone: `keys` never opens (or creates) the usage database.
  if (location.kind === 'file') return userErrors(() => work(new KeyStore(options.keys), { keysFile: options.keys }));
  const opened = await openStateForCommand(location, { keysFile: options.keys, usageDbFile: DEFAULT_USAGE_DB });
  try {
    return await userErrors(() => work(opened.store.keys, { state: opened.store.description }));
  } finally {
    await opened.store.close();
  }
}

export function keysCommand(): Command {
  const keys = withVerbosityOptions(new Command('keys'))
    .description('create, list and revoke API keys for pdsnap serve (only a hash of each key is stored)')
    .option('--keys <file>', `keys file (default ${DEFAULT_KEYS_FILE})`)
    .option('--state <file|redis-url>', STATE_OPTION_HELP)
    .option('--config <file>', 'config file with paths (default: pdsnap.config.yaml when present, or PDSNAP_CONFIG)')
    // main.ts sets exitOverride/output on `keys` after this function returns; nested subcommands
    // only inherit settings when created, so hand them over at dispatch (else a missing option exits 1).
    .hook('preSubcommand', (self, subcommand) => {
      subcommand.copyInheritedSettings(self);
      subcommand.showHelpAfterError(`(pdsnap keys ${subcommand.name()} --help lists its options)`);
    });

  keys
    .command('create')
    .description('create a key; the key is printed once and cannot be shown again')
    .requiredOption('--name <name>', 'who or what the key is for')
    .requiredOption('--scopes <list>', `comma-separated: ${SCOPES.join(', ')}`)
    .option('--tier <tier>', 'member or premium (default member)')
    .option('--json', 'print JSON to stdout')
    .action(async (_raw, command: Command) => {
      const options = parseOptions(CreateOptions, await withPathDefaults(command.optsWithGlobals(), ['keys']));
      const { record, secret } = await withKeys(command, options, (keys) => keys.create(options, clockNow()));
      printNotice('pdsnap: store this API key now: it is shown once and cannot be recovered (only its hash is kept)');
      if (options.json) return printJson({ ...publicView(record), key: secret });
      printLine(`created ${record.id} "${record.name}" (${record.tier}; ${record.scopes.join(',')})`);
      printLine(`key: ${secret}`);
    });

  keys
    .command('list')
    .description('list keys (never their secrets)')
    .option('--json', 'print JSON to stdout')
    .action(async (_raw, command: Command) => {
      const options = parseOptions(ListOptions, await withPathDefaults(command.optsWithGlobals(), ['keys']));
      const { records, where } = await withKeys(command, options, async (keys, where) => ({ records: await keys.list(), where }));
      if (options.json) return printJson({ ...where, keys: records.map(publicView) });
      if (records.length === 0) return printLine(`no keys in ${'keysFile' in where ? where.keysFile : where.state}`);
      printLine(
        formatTable(
          ['id', 'name', 'tier', 'scopes', 'created', 'revoked'],
          records.map((r) => [r.id, r.name, r.tier, r.scopes.join(','), r.createdAt, r.revokedAt ?? '']),
        ),
      );
    });

  keys
    .command('revoke')
    .description('revoke a key; running servers refuse it within seconds (see docs/keys-and-limits.md)')
    .argument('<id>', 'key id, e.g. key_3f2a9c1b7d4e')
    .option('--json', 'print JSON to stdout')
    .action(async (id: string, _raw, command: Command) => {
      const options = parseOptions(RevokeOptions, await withPathDefaults(command.optsWithGlobals(), ['keys']));
      const { record, alreadyRevoked } = await withKeys(command, options, (keys) => keys.revoke(id, clockNow()));
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
