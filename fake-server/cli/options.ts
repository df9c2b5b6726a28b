/**
 * The fake CLI's options: parsing, validation with messages that name the option, and the help
 * text. Nothing here starts a server, so it loads fast and can be tested directly.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CLIENT_COMPAT_MODES, type ClientCompat } from '../client-compat.ts';
import { KEY_PATTERN } from '../tenants.ts';
import { closest } from './closest.ts';

export const USAGE = `Usage: besi-fake [options]

Starts the Billing and Entitlements fake on a port and prints its URL and API keys.

Options:
  --port <n>               port to listen on (default 4010; 0 picks a free one)
  --host <h>               interface to bind (default 127.0.0.1)
  --key <key[:org]>        an accepted secret key, am_sk_test_… or am_sk_live_… (repeatable);
                           the default keys when none is given
  --seed <file>            start state, restored on every reset: a JSON array of calls
                           [{"operation", "body", "key"?}], or a state snapshot
  --state <file>           load the tenants' state from <file> at start (if it exists) and
                           save it there on exit (SIGTERM, SIGINT; started by npx or npm
                           run, also when the shell npm started it under is gone)
  --client-compat <mode>   where a published client differs from interface.md: auto (the
                           default) answers autumn-js, recognised by its User-Agent, as it
                           expects; autumn-js answers every client so; none follows
                           interface.md for every client
  --fault <RULE-ID>        break this rule on purpose (repeatable; see --list-faults)
  --frozen                 start every tenant's clock frozen
  --now <ms|ISO date>      start every tenant's clock at this time
  --id-seed <n>            seed of the ID generators (default 1)
  --max-tenants <n>        how many organisations /_fake/tenants.create may hold (default 1000)
  --log                    print one line per request: method, path, status, milliseconds
  --ready-json             print one JSON line when ready: {"url", "keys", "control_url"}
                           (instead of the banner)
  --list-faults            list the rules that --fault can break, and exit
  --help                   show this help, and exit
  --version                show the version, and exit

Environment:
  BESI_FAKE_ADMIN_KEY      a secret that may reset, export and import every tenant through the
                           control plane (/_fake/reset {"all": true}); none by default
`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface CliOptions {
  readonly command: 'serve' | 'help' | 'version' | 'list-faults';
  readonly port: number;
  readonly host: string;
  readonly keys: readonly { key: string; org: string }[] | undefined;
  readonly seed: string | undefined;
  readonly state: string | undefined;
  readonly clientCompat: ClientCompat;
  readonly faults: readonly string[];
  readonly frozen: boolean;
  readonly now: number | undefined;
  readonly idSeed: number;
  readonly maxTenants: number | undefined;
  readonly log: boolean;
  readonly readyJson: boolean;
}

const OPTIONS = {
  port: { type: 'string', default: '4010' },
  host: { type: 'string', default: '127.0.0.1' },
  key: { type: 'string', multiple: true },
  seed: { type: 'string' },
  state: { type: 'string' },
  'client-compat': { type: 'string', default: 'auto' },
  fault: { type: 'string', multiple: true },
  frozen: { type: 'boolean', default: false },
  now: { type: 'string' },
  'id-seed': { type: 'string', default: '1' },
  'max-tenants': { type: 'string' },
  log: { type: 'boolean', default: false },
  'ready-json': { type: 'boolean', default: false },
  'list-faults': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
} as const satisfies ParseArgsConfig['options'];

/** node's message names the option ("Unknown option '--prot'"); its advice about `--` gives way to the closest options. */
function parseArgsMessage(message: string): string {
  const unknown = /^Unknown option '(--?[^']*)'/.exec(message)?.[1];
  if (unknown === undefined) return message.replace(/\. To specify a positional argument.*$/s, '');
  return `Unknown option '${unknown}'; did you mean ${closest(unknown.replace(/^-+/, ''), Object.keys(OPTIONS), 2).map((name) => `--${name}`).join(' or ')}?`;
}

/** A key as a message may show it: a mistyped real key must not end up whole in a log. */
function shownKey(key: string): string {
  return JSON.stringify(key.length > 15 ? `${key.slice(0, 15)}…` : key);
}

function apiKey(entry: string): { key: string; org: string } {
  const [key = '', org = 'org_fake'] = entry.split(':');
  if (!KEY_PATTERN.test(key)) throw new UsageError(`--key ${shownKey(key)}: keys look like am_sk_test_… (sandbox) or am_sk_live_… (live), letters and digits after the prefix`);
  if (org === '') throw new UsageError(`--key ${shownKey(key)}: the organisation after ":" is empty`);
  return { key, org };
}

function integer(option: string, value: string, min: number, max: number): number {
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) throw new UsageError(`--${option} takes a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
  return number;
}

function time(value: string): number {
  const parsed = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isSafeInteger(parsed)) throw new UsageError(`--now takes milliseconds since 1970 or an ISO date, not ${JSON.stringify(value)}`);
  return parsed;
}

export function parseCliOptions(args: readonly string[]): CliOptions {
  let values;
  try {
    ({ values } = parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(parseArgsMessage((error as Error).message));
  }
  const compat = values['client-compat'];
  if (!(CLIENT_COMPAT_MODES as readonly string[]).includes(compat)) {
    throw new UsageError(`--client-compat takes ${CLIENT_COMPAT_MODES.slice(0, -1).join(', ')} or ${CLIENT_COMPAT_MODES.at(-1)}, not ${JSON.stringify(compat)}`);
  }
  return {
    command: values.help ? 'help' : values.version ? 'version' : values['list-faults'] ? 'list-faults' : 'serve',
    port: integer('port', values.port, 0, 65_535),
    host: values.host,
    keys: values.key?.map(apiKey),
    seed: values.seed,
    state: values.state,
    clientCompat: compat as ClientCompat,
    faults: values.fault ?? [],
    frozen: values.frozen,
    now: values.now === undefined ? undefined : time(values.now),
    idSeed: integer('id-seed', values['id-seed'], 0, 2 ** 32 - 1),
    maxTenants: values['max-tenants'] === undefined ? undefined : integer('max-tenants', values['max-tenants'], 1, 1_000_000),
    log: values.log,
    readyJson: values['ready-json'],
  };
}
