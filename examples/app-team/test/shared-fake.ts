// Recipe 2, part 2: in each test file, a tenant of its own on the shared fake (its own data, clock and keys), deleted afterwards.
import { Autumn } from 'autumn-js';
import { FakeControl } from 'besi-conformance/control';
import { afterAll, inject } from 'vitest';

export async function ownTenant(): Promise<{ autumn: Autumn; control: FakeControl }> {
  const tenant = await new FakeControl({ url: inject('fakeUrl'), key: inject('fakeKey') }).createTenant();
  afterAll(() => tenant.control.deleteTenant());
  // autumn-js fails open by default (a failed check reads as "allowed"): a test must see failures.
  return { autumn: new Autumn({ secretKey: tenant.sandboxKey, serverURL: inject('fakeUrl'), failOpen: false }), control: tenant.control };
}
