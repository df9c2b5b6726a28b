import { ErrorBody } from '../spec/common.ts';
import { operations } from '../spec/operations.ts';
import { createFakeServer } from '../fake-server/index.ts';
import { testSeed } from '../fixtures/random.ts';
import { createTarget, loadConfig, runScenario } from '../suites/framework/index.ts';
import { SCENARIOS } from '../suites/scenarios/index.ts';

const [faultList, filter] = [process.argv[2] ?? '', process.argv[3]];
const faults = faultList === '' ? [] : faultList.split(',');
const fake = await createFakeServer({ faults });
const target = await createTarget({
  operations, errorBody: ErrorBody, config: loadConfig({ env: {} }),
  run: { baseUrl: fake.url, apiKey: fake.apiKey, ...(fake.otherTenantApiKey && { otherTenantApiKey: fake.otherTenantApiKey }), seed: testSeed(), salt: '', kind: 'fake' },
  retry: false,
});
for (const s of SCENARIOS.filter((s) => filter === undefined || new RegExp(filter).test(s.id))) {
  const o = await runScenario(s, target, { timeoutMs: 30_000 });
  for (const [rule, v] of Object.entries(o.verdicts)) if (v.status === 'FAIL' || v.status === 'ERROR') console.log(`${s.id}: ${rule} ${v.status}: ${(v.message ?? '').split('\n')[0].slice(0, 300)}`);
}
await target.close(); await fake.close();
