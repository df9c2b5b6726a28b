/**
 * Commands the suite prints for a person to copy (a failing rule's `re-run:`, a finding's `--replay`)
 * point at the target the run used, wherever the run took it from (options, environment, config
 * file): its base URL, API version and profile as options, and the keys as `API_KEY=…`
 * placeholders, never their values.
 */
import { relative } from 'node:path';
import { shellArg } from './curl.ts';

/** Set by the CLI for the processes it starts (vitest's workers): how the person started it. */
const INVOCATION = 'BESI_CONFORMANCE_INVOCATION';

/**
 * How a person starts this CLI, as they started it: `node suites/cli.mjs` in the repository (or
 * `npx tsx suites/cli.ts`), `besi-conformance` where the package is installed. The CLI records it
 * for its workers (`remember`).
 */
export function cliInvocation(): string {
  const recorded = process.env[INVOCATION];
  if (recorded) return recorded;
  const script = process.argv[1] ?? 'besi-conformance';
  const path = relative(process.cwd(), script) || script;
  if (script.endsWith('.mjs')) return `node ${path}`;
  return script.endsWith('.ts') ? `npx tsx ${path}` : 'besi-conformance';
}

/** Called by the CLI at its start: the workers it starts print commands as the person started it. */
export function rememberInvocation(): void {
  process.env[INVOCATION] ??= cliInvocation();
}

/** The placeholder printed where a key goes; a person puts the key there. */
export const KEY_PLACEHOLDER = '…';

export interface PrintedTarget {
  /** Undefined: the embedded fake (nothing to point at, no key). */
  readonly baseUrl?: string | undefined;
  readonly apiVersion: string;
  /** The profile's name, or its path as the person can use it. */
  readonly profile: string;
  /** The run had a key of another tenant (OTHER_TENANT_API_KEY), which the command needs too. */
  readonly otherTenantKey?: boolean;
}

/** `API_KEY=… ` (and `OTHER_TENANT_API_KEY=… `) before a command against a target by URL; nothing for the embedded fake. */
export function keyPlaceholders(target: PrintedTarget): string {
  if (target.baseUrl === undefined) return '';
  return `API_KEY=${KEY_PLACEHOLDER} ${target.otherTenantKey ? `OTHER_TENANT_API_KEY=${KEY_PLACEHOLDER} ` : ''}`;
}

/** `--base-url … --api-version … --profile …`: the options that point a command at the target. */
export function targetOptions(target: PrintedTarget): string {
  return [
    ...(target.baseUrl === undefined ? [] : ['--base-url', shellArg(target.baseUrl)]),
    '--api-version',
    shellArg(target.apiVersion),
    '--profile',
    shellArg(target.profile),
  ].join(' ');
}

/** A command against the target: the key placeholders, the command, the target's options, the rest. */
export function targetedCommand(target: PrintedTarget, command: string, rest = ''): string {
  return `${keyPlaceholders(target)}${command} ${targetOptions(target)}${rest === '' ? '' : ` ${rest}`}`;
}
