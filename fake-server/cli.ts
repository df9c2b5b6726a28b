#!/usr/bin/env node
/**
 * `besi-fake [options]` (in this repository `npm run fake -- [options]`): starts the fake on a port
 * and prints its URL and API keys, or with --ready-json one JSON line for scripts. Stops cleanly on
 * SIGTERM and SIGINT, and when npm that started it is gone: the port is released, and --state is
 * saved. `--help` lists the options (fake-server/cli/options.ts); a bad one is one line on stderr
 * and exit code 2.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { OPERATION_NAMES } from '../spec/operations.ts';
import { parseCliOptions, USAGE, UsageError, type CliOptions } from './cli/options.ts';
import { CONTROL_PREFIX } from '../spec/control-plane.ts';
import { createFakeServer, type FakeServer, type Seed } from './index.ts';
import { envOfKey } from './tenants.ts';

const SeedCalls = z.array(z.strictObject({ operation: z.enum(OPERATION_NAMES), body: z.unknown(), key: z.string().optional() }));

function readJson(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`${what} ${path}: ${(error as Error).message}`);
  }
}

/** A seed file: an array of calls, or a state snapshot (validated when the fake starts). */
function readSeed(path: string): Seed {
  const value = readJson(path, '--seed');
  if (!Array.isArray(value)) return value as Seed;
  const parsed = SeedCalls.safeParse(value);
  if (!parsed.success) throw new UsageError(`--seed ${path}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`);
  return parsed.data;
}

/** The version in the package's package.json: the nearest one above this module named besi-conformance (source, dist/bin/, npm run fake's cache). */
function packageVersion(): string {
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    const url = new URL('package.json', dir);
    if (existsSync(url)) {
      const manifest = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'besi-conformance') return manifest.version ?? 'unknown';
    }
    if (dir.pathname === '/') return 'unknown';
  }
}

/** Saves the configured organisations' tenants (created ones die with the process, and their keys with them), atomically. */
function saveState(fake: FakeServer, path: string, configuredOrgs: ReadonlySet<string>): void {
  const snapshot = fake.exportState();
  const kept = { ...snapshot, tenants: snapshot.tenants.filter((tenant) => configuredOrgs.has(tenant.org)) };
  writeFileSync(`${path}.tmp`, `${JSON.stringify(kept, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

const COMPAT_BANNER: Readonly<Record<CliOptions['clientCompat'], string>> = {
  auto: 'autumn-js, recognised by its User-Agent, is answered as it expects (--client-compat none: interface.md for every client)',
  'autumn-js': 'every request is answered as autumn-js expects',
  none: 'none: every request is answered as interface.md says',
};

function banner(fake: FakeServer, options: CliOptions): string {
  const lines = [`Billing and Entitlements fake listening on ${fake.url}`];
  for (const { key, org } of fake.keys) lines.push(`  API key (${org}, ${envOfKey(key)}): ${key}`);
  lines.push(`  Client compatibility: ${COMPAT_BANNER[options.clientCompat]}`);
  if (options.faults.length > 0) lines.push(`  Broken on purpose: ${options.faults.join(', ')}`);
  if (options.state) lines.push(`  State file: ${options.state}`);
  lines.push(`  Control plane: ${fake.url}${CONTROL_PREFIX}/ (reset, clock.get, clock.set, clock.advance, records.force_state, events.list, tenants.create, tenants.delete, state.export, state.import)`);
  return lines.join('\n');
}

/**
 * Started through npm (npx, npm exec, npm run), the fake runs under a shell npm spawns. npm passes
 * SIGTERM and SIGINT on to that shell only, and Debian's sh (dash) neither execs the command nor
 * passes signals on: it dies of SIGTERM, leaving the fake orphaned, and holds SIGINT until the fake
 * exits. So under npm the fake also stops when its parent is gone.
 */
function stopWhenOrphaned(parent: number, stop: () => void): void {
  if (process.env['npm_command'] === undefined) return;
  const watch = setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch {
      clearInterval(watch);
      stop();
    }
  }, 100);
  watch.unref();
}

/** Starts the fake; a bad --seed or --state, or a port in use, is the user's to fix (a UsageError). */
async function start(options: CliOptions, seed: Seed | undefined): Promise<FakeServer> {
  const adminKey = process.env['BESI_FAKE_ADMIN_KEY'] || undefined;
  try {
    return await createFakeServer({
      port: options.port,
      host: options.host,
      frozen: options.frozen,
      idSeed: options.idSeed,
      clientCompat: options.clientCompat,
      ...(options.keys !== undefined && { keys: options.keys }),
      ...(seed !== undefined && { seed }),
      ...(options.faults.length > 0 && { faults: options.faults }),
      ...(options.now !== undefined && { now: options.now }),
      ...(options.maxTenants !== undefined && { maxTenants: options.maxTenants }),
      ...(adminKey !== undefined && { adminKey }),
      ...(options.log && { onRequest: ({ method, path, status, ms }) => console.log(`${method} ${path} ${status} ${ms}ms`) }),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`port ${options.port} on ${options.host} is in use; choose another with --port (0 picks a free one)`);
    // Nothing else but the seed can fail at start: a snapshot that does not validate, or a call it cannot make.
    if (options.seed !== undefined) throw new UsageError(`--seed ${options.seed}: ${(error as Error).message}`);
    throw error;
  }
}

async function serve(options: CliOptions): Promise<void> {
  // Read before anything else: by the time the fake is ready, the shell that started it may already have died of a SIGTERM.
  const parent = process.ppid;
  if (options.faults.length > 0) (await import('./cli/faults.ts')).checkFaults(options.faults);
  const seed = options.seed === undefined ? undefined : readSeed(options.seed);
  const fake = await start(options, seed);
  const configuredOrgs = new Set(fake.keys.map((config) => config.org));
  if (options.state !== undefined && existsSync(options.state)) {
    try {
      fake.importState(readJson(options.state, '--state'));
    } catch (error) {
      await fake.close();
      throw error instanceof UsageError ? error : new UsageError(`--state ${options.state}: ${(error as Error).message}`);
    }
  }

  let stopping = false;
  const stop = () => {
    // A second signal while closing gives up waiting.
    if (stopping) process.exit(1);
    stopping = true;
    void fake
      .close()
      .then(() => {
        if (options.state !== undefined) saveState(fake, options.state, configuredOrgs);
        process.exit(0);
      })
      .catch((error: unknown) => {
        console.error(`besi-fake: ${(error as Error).message}`);
        process.exit(1);
      });
  };
  // Before the ready line: whoever reads it may signal at once.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  stopWhenOrphaned(parent, stop);

  if (options.readyJson) {
    const keys = fake.keys.map(({ key, org }) => ({ key, org, env: envOfKey(key) }));
    console.log(JSON.stringify({ url: fake.url, keys, control_url: `${fake.url}${CONTROL_PREFIX}` }));
  } else {
    console.log(banner(fake, options));
  }
}

async function main(args: readonly string[]): Promise<void> {
  const options = parseCliOptions(args);
  switch (options.command) {
    case 'help':
      return void process.stdout.write(USAGE);
    case 'version':
      return void console.log(packageVersion());
    case 'list-faults':
      // Loaded only here: the fault and rule catalogues are most of the fake's code.
      return void console.log((await import('./cli/faults.ts')).listFaults());
    case 'serve':
      return serve(options);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    // One line, whatever the message quotes (a seed's validation issues span several).
    console.error(`besi-fake: ${error.message.replace(/\s*\n\s*/g, ' ')} (besi-fake --help lists the options)`);
    process.exit(2);
  }
  console.error(`besi-fake: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
