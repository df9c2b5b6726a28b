// Recipe 3: no socket at all; the client's requests go straight to the fake's fetch handler.
import { Autumn, HTTPClient } from 'autumn-js';
import { createFakeApp } from 'besi-conformance';
import { expect, it } from 'vitest';

const fake = createFakeApp();
const autumn = new Autumn({
  secretKey: fake.keys[0]!.key,
  serverURL: 'http://fake.invalid',
  httpClient: new HTTPClient({ fetcher: (input, init) => fake.fetch(new Request(input, init)) }),
  failOpen: false,
});

it('answers without a server', async () => {
  await autumn.features.create({ featureId: 'sso', name: 'SSO', type: 'boolean' });
  await autumn.plans.create({ planId: 'enterprise', name: 'Enterprise', items: [{ featureId: 'sso' }] });
  await autumn.customers.getOrCreate({ customerId: 'acme' });
  expect((await autumn.check({ customerId: 'acme', featureId: 'sso' })).allowed).toBe(false);
  await autumn.billing.attach({ customerId: 'acme', planId: 'enterprise' });
  expect((await autumn.check({ customerId: 'acme', featureId: 'sso' })).allowed).toBe(true);
});
