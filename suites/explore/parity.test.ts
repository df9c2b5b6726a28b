/**
 * The parity report against a deployment: here a second fake process, started from the command line
 * with one rule broken. The report must list exactly that difference class (its rule, its field) and
 * nothing else, counted, with an example.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../spec/common.ts';
import { operations } from '../../spec/operations.ts';
import { loadConfig } from '../framework/config.ts';
import { createTarget } from '../framework/target.ts';
import { LEDGER, PROBES } from '../support.ts';
import { explore } from './explorer.ts';
import { parityMarkdown, parityReport } from './parity.ts';
import { httpTarget } from './targets.ts';

const FAULT = 'CHECK-RESULT-ECHOES';
const root = fileURLToPath(new URL('../../', import.meta.url));
let child: ChildProcess;
let ready: { url: string; keys: { key: string }[] };

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', 'fake-server/cli.ts', '--port', '0', '--ready-json', '--fault', FAULT], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  ready = JSON.parse(line) as typeof ready;
}, 60_000);

afterAll(async () => {
  child.kill('SIGTERM');
  await once(child, 'exit');
});

describe('explore --parity against a fake process with one fault', () => {
  it(`lists exactly the class of ${FAULT}`, { timeout: 300_000 }, async () => {
    const target = await createTarget({
      operations,
      errorBody: ErrorBody,
      // As a deployment: the key comes from the configuration, as API_KEY would.
      config: loadConfig({ env: { BASE_URL: ready.url, API_KEY: ready.keys[0]!.key } }),
      run: { baseUrl: ready.url, apiKey: ready.keys[0]!.key, seed: 4242, salt: 'parity', kind: 'deployment' },
      retry: false,
      ...LEDGER,
      probes: PROBES,
    });
    try {
      const explored = httpTarget(target, { ns: target.ns });
      const result = await explore(explored, { seed: 4242, runs: 20, maxSteps: 25, parity: true });
      const report = parityReport(result, ready.url, explored.secrets());
      expect(result.error).toBeUndefined();
      expect(report.classes.map((c) => `${c.rule} ${c.field}`)).toEqual([`${FAULT} BalancesCheckResult.required_balance`]);
      expect(report.classes[0]!.count).toBeGreaterThan(0);
      expect(parityMarkdown(report)).toMatch(new RegExp(`\\| ${FAULT} \\| SHOULD \\| BalancesCheckResult.required_balance \\|`));
      expect(JSON.stringify(report)).not.toMatch(/am_sk_/);
    } finally {
      await target.close();
    }
  });
});
