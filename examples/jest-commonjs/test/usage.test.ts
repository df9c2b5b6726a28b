// jest in its default CommonJS mode: babel-jest compiles this file to require() calls, and besi-conformance
// is required as it is published (its `require` build), with no transform of node_modules.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Autumn } from 'autumn-js';
import { createFakeServer, type FakeServer } from 'besi-conformance';

const DAY = 86_400_000;
let fake: FakeServer;
beforeAll(async () => {
  // No clientCompat: the fake recognises autumn-js by its User-Agent.
  fake = await createFakeServer({ port: 0, now: Date.UTC(2026, 0, 1), frozen: true });
});
afterAll(() => fake.close());

it('runs a month of messages against the fake, one tenant per test', async () => {
  const tenant = fake.tenant();
  // autumn-js fails open by default (a failed check reads as "allowed"): a test must see failures.
  const autumn = new Autumn({ secretKey: tenant.apiKey, serverURL: fake.url, failOpen: false });
  await autumn.features.create({ featureId: 'messages', name: 'Messages', type: 'metered', consumable: true });
  await autumn.plans.create({ planId: 'pro', name: 'Pro', items: [{ featureId: 'messages', included: 100, reset: { interval: 'month' } }] });
  await autumn.customers.getOrCreate({ customerId: 'acme' });
  await autumn.billing.attach({ customerId: 'acme', planId: 'pro' });
  await autumn.track({ customerId: 'acme', featureId: 'messages', value: 30 });
  expect((await autumn.check({ customerId: 'acme', featureId: 'messages' })).balance?.remaining).toBe(70);
  tenant.clock.advance(31 * DAY);
  expect((await autumn.check({ customerId: 'acme', featureId: 'messages' })).balance?.remaining).toBe(100);
  tenant.delete();
});

it('was loaded as CommonJS', () => {
  expect(require.resolve('besi-conformance')).toMatch(/besi-conformance\/dist\/cjs\/fake-server\/index\.js$/);
});
