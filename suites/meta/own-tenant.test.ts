/**
 * A scenario that would run alone (it moves the clock) runs in an organisation of its own, beside
 * the others, where the target makes organisations (the fake's `tenants.create`), and alone where
 * it does not (schedule.ts `placement`). Its organisation is deleted when it ends, what it made there
 * is none of the run's cleanup, and its keys reach no output.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeApp, type FakeApp } from '../../fake-server/index.ts';
import { otherTenantKey } from '../../fake-server/tenants.ts';
import { capabilitySet } from '../framework/capabilities.ts';
import { runScenarios } from '../framework/scenario.ts';
import { createFeature, inProcessTarget, scenario, type ConformanceTarget } from '../support.ts';
import { InProcessDispatcher } from './in-process-fake.ts';

const DAY_MS = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const opened: ConformanceTarget[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((target) => target.close()));
});

async function fake(): Promise<{ app: FakeApp; target: ConformanceTarget; apiKey: string }> {
  const app = createFakeApp();
  const apiKey = app.keys[0]!.key;
  const target = await inProcessTarget({ url: 'http://fake.invalid', apiKey, otherTenantApiKey: otherTenantKey(app.keys, apiKey) }, new InProcessDispatcher(app));
  opened.push(target);
  return { app, target, apiKey };
}

async function control(app: FakeApp, key: string, name: string, body: unknown = {}): Promise<{ status: number; body: unknown }> {
  const response = await app.fetch(new Request(`http://fake.invalid/_fake/${name}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  return { status: response.status, body: await response.json() };
}

/** A scenario that moves its tenant's clock a day and makes a feature, and one that only reads; each logs its start and end. */
function pair(log: string[], seen: { key?: string; feature?: string }) {
  const movesClock = scenario({ id: 'meta.moves-clock', title: 'moves the clock', rules: ['FEAT-TYPES'], needs: ['control-plane'] }, async (t) => {
    log.push('start clock');
    seen.key = t.apiKey;
    seen.feature = (await createFeature(t, 'boolean')).id;
    await t.control.call('clock.advance', { ms: DAY_MS });
    await sleep(50);
    log.push('end clock');
    // A message quoting the key: the outcome must carry it redacted.
    t.check('FEAT-TYPES', () => expect(`the key ${t.apiKey}`).toBe('anything else'));
  });
  const reads = scenario({ id: 'meta.reads', title: 'reads', rules: ['FEAT-SHAPE'], mutates: false }, async (t) => {
    log.push('start shared');
    t.expectOk(await t.client.call('features.list', {}));
    await sleep(50);
    log.push('end shared');
  });
  return [movesClock, reads] as const;
}

describe('a scenario that needs the control plane', () => {
  it('runs in an organisation of its own, beside a shared one, on a target offering tenants.create; the organisation is gone after it, its keys redacted', async () => {
    const { app, target, apiKey } = await fake();
    expect(target.capabilities.has('own-tenant'), target.capabilities.why.get('own-tenant')).toBe(true);
    const mainClock = (await control(app, apiKey, 'clock.get')).body as { now: number };
    const log: string[] = [];
    const seen: { key?: string; feature?: string } = {};
    const [moves, reads] = await runScenarios(pair(log, seen), target, { concurrency: 4 });

    // Beside the other: the shared one started before the one with the clock ended.
    expect(log.indexOf('start shared')).toBeLessThan(log.indexOf('end clock'));
    expect(reads!.status).toBe('pass');
    // In a tenant of its own, gone now: its key opens nothing, and the run's clock did not move.
    expect(seen.key).toMatch(/^am_sk_test_/);
    expect(seen.key).not.toBe(apiKey);
    expect((await control(app, seen.key!, 'clock.get')).status).toBe(401);
    expect(((await control(app, apiKey, 'clock.get')).body as { now: number }).now).toBeLessThan(mainClock.now + DAY_MS);
    // Its key is in no output: the evidence, the verdicts, the error.
    expect(moves!.status).toBe('fail');
    const secretPart = seen.key!.slice('am_sk_test_'.length);
    const error = moves!.error as Error;
    const written = JSON.stringify({ evidence: moves!.evidence, verdicts: moves!.verdicts, message: error.message, stack: error.stack });
    expect(written).toContain('[REDACTED]');
    expect(written).not.toContain(secretPart.slice(0, 16));
    expect([...new Set(moves!.evidence.map((exchange) => exchange.request.headers['authorization']))]).toEqual(['Bearer [REDACTED]']);
    // What it made went with its organisation: the run's cleanup neither removes it nor reports it.
    const cleanup = await target.close();
    const listed = [...cleanup.undone, ...cleanup.alreadyGone, ...cleanup.left, ...cleanup.failed].map(({ entry }) => entry.id);
    expect(listed).not.toContain(seen.feature);
    expect(cleanup.left).toEqual([]);
    expect(cleanup.failed).toEqual([]);
  });

  it('runs alone on a target that does not offer tenants.create, in the run tenant', async () => {
    const { target, apiKey } = await fake();
    const without = { ...target, capabilities: capabilitySet(new Set([...target.capabilities.available].filter((c) => c !== 'own-tenant'))) };
    const log: string[] = [];
    const seen: { key?: string } = {};
    await runScenarios(pair(log, seen), without, { concurrency: 4 });
    expect(log).toEqual(['start clock', 'end clock', 'start shared', 'end shared']);
    expect(seen.key).toBe(apiKey);
  });
});
