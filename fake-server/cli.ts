/**
 * `npm run fake -- [options]`: starts the fake on a port and prints its URL and API keys.
 *
 *   --port <n>        port to listen on (default 4010; 0 picks a free one)
 *   --host <h>        interface to bind (default 127.0.0.1)
 *   --seed <file>     JSON file of calls replayed at start and on reset: [{"operation", "body", "key"?}]
 *   --key <key[:org]> an accepted secret key (repeatable); the default keys when none is given
 *   --fault <RULE-ID> break this rule on purpose (repeatable)
 *   --frozen          start with the clock frozen
 *   --now <ms|ISO>    start the clock at this time
 *   --id-seed <n>     seed of the ID generator (default 1)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { OPERATION_NAMES } from '../spec/operations.ts';
import { createFakeServer } from './index.ts';

const SeedFile = z.array(z.object({ operation: z.enum(OPERATION_NAMES), body: z.unknown(), key: z.string().optional() }));

function parseTime(value: string): number {
  const time = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isSafeInteger(time)) throw new Error(`--now takes milliseconds or an ISO date, not ${value}`);
  return time;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      seed: { type: 'string' },
      key: { type: 'string', multiple: true },
      fault: { type: 'string', multiple: true },
      frozen: { type: 'boolean', default: false },
      now: { type: 'string' },
      'id-seed': { type: 'string', default: '1' },
    },
    strict: true,
  });
  const seed = values.seed === undefined ? undefined : SeedFile.parse(JSON.parse(readFileSync(values.seed, 'utf8')));
  const keys = values.key?.map((entry) => {
    const [key, org = 'org_fake'] = entry.split(':');
    return { key: key!, org };
  });
  const fake = await createFakeServer({
    port: Number(values.port),
    host: values.host,
    frozen: values.frozen,
    idSeed: Number(values['id-seed']),
    ...(keys !== undefined && { keys }),
    ...(seed !== undefined && { seed }),
    ...(values.fault !== undefined && { faults: values.fault }),
    ...(values.now !== undefined && { now: parseTime(values.now) }),
  });
  console.log(`Billing and Entitlements fake listening on ${fake.url}`);
  for (const { key, org } of fake.keys) console.log(`  API key (${org}, ${key.startsWith('am_sk_test_') ? 'sandbox' : 'live'}): ${key}`);
  if (values.fault?.length) console.log(`  Broken on purpose: ${values.fault.join(', ')}`);
  console.log(`  Control plane: ${fake.url}/_fake/ (reset, clock.get, clock.set, clock.advance, records.force_state, events.list)`);
  const stop = () => void fake.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
