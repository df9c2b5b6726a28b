// Recipe 1: the fake in the test file's own process, on a free port; one tenant of its own per test.
import { Autumn } from 'autumn-js';
import { createFakeServer, type FakeServer } from 'besi-conformance';
import { afterAll, beforeAll, expect, it } from 'vitest';

let fake: FakeServer;
beforeAll(async () => {
  fake = await createFakeServer({ port: 0, now: Date.UTC(2026, 0, 1), frozen: true });
});
afterAll(() => fake.close());

it('tracks usage against a plan', async () => {
  const tenant = fake.tenant();
  const autumn = new Autumn({ secretKey: tenant.apiKey, serverURL: fake.url, failOpen: false });
  await autumn.features.create({ featureId: 'seats', name: 'Seats', type: 'metered', consumable: false });
  await autumn.plans.create({ planId: 'team', name: 'Team', items: [{ featureId: 'seats', included: 3 }] });
  await autumn.customers.getOrCreate({ customerId: 'acme' });
  await autumn.billing.attach({ customerId: 'acme', planId: 'team' });
  await autumn.entities.create({ customerId: 'acme', entityId: 'desk1', featureId: 'seats', name: 'Desk 1' });
  expect((await autumn.entities.list({ customerId: 'acme' })).list.map((entity) => entity.id)).toEqual(['desk1']);
  expect(tenant.clock.now()).toBe(Date.UTC(2026, 0, 1));
  tenant.delete();
});
