/**
 * Wire names interface.md does not show come from the profile (issue 17 item 4), against the real
 * fake: a profile's `wireNames` renames the field on the wire; before a MUST rule relies on one, the
 * probe (`requireWireName`) shows that the target reads it, and a target that does not read it under
 * the configured name is SKIP with the profile key to set, never FAIL.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeApp } from '../../fake-server/app.ts';
import { serve } from '../../fake-server/http/node-adapter.ts';
import { ErrorBody } from '../../spec/common.ts';
import { operations } from '../../spec/operations.ts';
import { testSeed } from '../../fixtures/random.ts';
import { createTarget, loadConfig, runScenario } from '../framework/index.ts';
import { createCustomer, createEntity, createFeature, LEDGER, scenario, type ConformanceTarget } from '../support.ts';

const dir = mkdtempSync(join(tmpdir(), 'conformance-wire-names-'));
let served: Awaited<ReturnType<typeof serve>>;
let apiKey: string;
const targets: ConformanceTarget[] = [];

beforeAll(async () => {
  const app = createFakeApp();
  served = await serve(app);
  apiKey = app.keys[0]!.key;
});
afterAll(async () => {
  for (const target of targets) await target.close();
  await served.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A target of the fake under a profile with these wire names. */
async function targetWith(wireNames: Record<string, string>): Promise<ConformanceTarget> {
  const profile = join(dir, `profile-${targets.length}.json`);
  writeFileSync(profile, JSON.stringify({ capabilities: [], wireNames }));
  const config = loadConfig({ env: { CONFORMANCE_PROFILE: profile } });
  const target = await createTarget({ operations, errorBody: ErrorBody, config, run: { baseUrl: served.url, apiKey, seed: testSeed(), salt: `profile-${targets.length}`, kind: 'fake' }, retry: false, ...LEDGER });
  targets.push(target);
  return target;
}

/** Lists two entities by the search filter (ENT-SEARCH, MUST, rests on its wire name), after the probe. */
const bySearch = scenario({ id: 'meta.wire-name-search', title: 'entities.list search by name', rules: ['ENT-SEARCH'] }, async (t) => {
  const feature = await createFeature(t, 'allocated');
  const customer = await createCustomer(t);
  const [first] = [await createEntity(t, customer.id, feature.id, 'Alpha seat'), await createEntity(t, customer.id, feature.id, 'Beta seat')];
  const ids = async (search: string | undefined) => {
    const page = t.setup(await t.client.call('entities.list', { customer_id: customer.id, ...(search === undefined ? {} : { search }) }), ['list']);
    return page.list.map((entity) => entity.id).sort();
  };
  await t.requireWireName('entities.list.search', (send) => ids(send ? 'Alpha' : undefined));
  await t.check('ENT-SEARCH', async () => expect(await ids('Alpha'), `entities.list with ${t.wireName('entities.list.search')}`).toEqual([first!.id]));
});

describe('wire names from the profile', () => {
  it('sends the reference name by default; the probe shows the target reads it, and the MUST rule is checked', async () => {
    const outcome = await runScenario(bySearch, await targetWith({}), { timeoutMs: 30_000 });
    expect(outcome.verdicts['ENT-SEARCH']).toEqual({ status: 'PASS' });
    expect(outcome.evidence.filter((e) => e.label === 'entities.list').map((e) => Object.keys(e.request.body as object))).toContainEqual(['customer_id', 'search']);
  });

  it('sends the profile’s name instead; a target that does not read it is SKIP naming the profile key, not FAIL', async () => {
    const outcome = await runScenario(bySearch, await targetWith({ 'entities.list.search': 'query' }), { timeoutMs: 30_000 });
    expect(outcome.status).toBe('skip');
    expect(outcome.verdicts['ENT-SEARCH']).toMatchObject({ status: 'SKIP', message: expect.stringMatching(/^interface\.md does not show this wire name; set wireNames\.entities\.list\.search in the profile \(the target did not read the search of entities\.list as "query": /) });
    const sent = outcome.evidence.filter((e) => e.label === 'entities.list').map((e) => Object.keys(e.request.body as object));
    expect(sent).toContainEqual(['customer_id', 'query']);
    expect(sent.flat()).not.toContain('search');
  });

  it('refuses a profile naming a field the registry does not know, or a name that is not a JSON key', () => {
    for (const wireNames of [{ 'entities.list.planfilter': 'plans' }, { 'entities.list.search': 'not a key' }]) {
      const profile = join(dir, 'bad.json');
      writeFileSync(profile, JSON.stringify({ wireNames }));
      expect(() => loadConfig({ env: { CONFORMANCE_PROFILE: profile } })).toThrow(/wireNames/);
    }
  });
});
