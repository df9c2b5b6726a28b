// The scenario both shared-fake files run at once, with the same IDs: a plan with 100 messages a month, usage, then a month later.
import type { Autumn } from 'autumn-js';
import type { FakeControl } from 'besi-conformance';
import { expect } from 'vitest';

const DAY = 86_400_000;

export async function monthOfMessages(autumn: Autumn, control: FakeControl, used: number): Promise<void> {
  await autumn.features.create({ featureId: 'messages', name: 'Messages', type: 'metered', consumable: true });
  await autumn.plans.create({ planId: 'pro', name: 'Pro', items: [{ featureId: 'messages', included: 100, reset: { interval: 'month' } }] });
  await autumn.customers.getOrCreate({ customerId: 'acme' });
  await autumn.billing.attach({ customerId: 'acme', planId: 'pro' });
  const start = await control.now();
  for (let i = 0; i < used; i++) await autumn.track({ customerId: 'acme', featureId: 'messages', value: 1 });
  expect((await autumn.check({ customerId: 'acme', featureId: 'messages' })).balance?.remaining).toBe(100 - used);
  await control.advance(31 * DAY);
  expect(await control.now(), "only this tenant's clock moved").toBe(start + 31 * DAY);
  expect((await autumn.check({ customerId: 'acme', featureId: 'messages' })).balance?.remaining, 'the monthly reset').toBe(100);
  await control.reset();
  await expect(autumn.customers.get({ customerId: 'acme' }), 'reset empties this tenant only').rejects.toThrow();
}
