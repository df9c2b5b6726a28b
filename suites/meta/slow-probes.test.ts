/**
 * What a scenario infers from the time between two calls must hold against a slow target (issue 26:
 * the whole suite behind a 400 ms proxy SKIPped PREV-REFUND-MODE-ENUM, which PASSes at once). Its
 * probe compared two prorated refunds of a large price taken one round trip apart, on a clock that
 * runs: 600 ms apart they differ by more than a cent. Against the fake, in-process, each answer held
 * 600 ms.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createFakeApp } from '../../fake-server/app.ts';
import { otherTenantKey } from '../../fake-server/tenants.ts';
import { runScenarios } from '../framework/index.ts';
import { SCENARIOS } from '../scenarios/index.ts';
import { inProcessTarget } from '../support.ts';
import { InProcessDispatcher } from './in-process-fake.ts';

const LATENCY_MS = 600;

describe('probes against a slow target', () => {
  it('PREV-REFUND-MODE-ENUM: the refund mode is seen read, and the rule decided, with 600 ms per answer', async () => {
    const app = createFakeApp();
    const slow = { ...app, reply: undefined, fetch: async (request: Request) => {
      const response = await app.fetch(request);
      await delay(LATENCY_MS);
      return response;
    } };
    const apiKey = app.keys[0]!.key;
    const target = await inProcessTarget({ url: 'http://fake.invalid', apiKey, otherTenantApiKey: otherTenantKey(app.keys, apiKey) }, new InProcessDispatcher(slow));
    const [outcome] = await runScenarios(SCENARIOS.filter((s) => s.id === 'preview.refund-mode-enum'), target);
    expect(outcome?.verdicts['PREV-REFUND-MODE-ENUM']).toEqual({ status: 'PASS' });
  }, 60_000);
});
