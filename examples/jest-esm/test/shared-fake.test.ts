// jest with ES modules (node --experimental-vm-modules, as jest's documentation sets it up): babel-jest keeps
// the imports, and besi-conformance is imported as it is published (its `import` build).
import { afterAll, expect, it } from '@jest/globals';
import { Autumn } from 'autumn-js';
import * as besi from 'besi-conformance';
import { createFakeServer } from 'besi-conformance';
import { FakeControl } from 'besi-conformance/control';

// One fake (in a global setup it would serve every test file), a tenant of its own for this file.
const fake = await createFakeServer({ port: 0, frozen: true });
const tenant = await new FakeControl({ url: fake.url, key: fake.apiKey }).createTenant();
afterAll(async () => {
  await tenant.control.deleteTenant();
  await fake.close();
});

it('gives seats through licenses, the client leaving out names as it may', async () => {
  // No clientCompat: the fake recognises autumn-js by its User-Agent and takes what it sends.
  const autumn = new Autumn({ secretKey: tenant.sandboxKey, serverURL: fake.url, failOpen: false });
  await autumn.features.create({ featureId: 'seats', name: 'Seats', type: 'metered', consumable: false });
  await autumn.plans.create({ planId: 'seat', name: 'Seat' });
  await autumn.plans.create({ planId: 'team', name: 'Team', licenses: [{ licensePlanId: 'seat', included: 2 }] });
  await autumn.customers.getOrCreate({ customerId: 'acme' });
  await autumn.billing.attach({ customerId: 'acme', planId: 'team' });
  await autumn.licenses.attach({ customerId: 'acme', planId: 'seat', entities: [{ entityId: 'alice', featureId: 'seats' }] });
  const listed = await autumn.entities.list({ customerId: 'acme' });
  expect(listed.list.map((entity) => entity.id)).toEqual(['alice']);
  await tenant.control.reset();
  await expect(autumn.customers.get({ customerId: 'acme' })).rejects.toThrow();
});

it('was loaded as an ES module, not the CommonJS build through interop (which adds a default export)', () => {
  expect(Object.keys(besi)).toContain('createFakeServer');
  expect(Object.keys(besi)).not.toContain('default');
});
