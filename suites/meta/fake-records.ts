/** What a fake holds, named as the cleanup names kinds: how the meta-tests hold a report's leftovers to the truth. */
import type { FakeApp } from '../../fake-server/app.ts';

/** `<kind> <id>` of every record a tenant holds, sorted. */
export function recordsOf(fake: Pick<FakeApp, 'exportState'>, key: string): string[] {
  const { tables } = fake.exportState(key).tenants[0]!;
  return [
    ...tables.customers.map((row) => `customer ${row.id}`),
    ...tables.entities.map((row) => `entity ${row.id}`),
    ...tables.plans.map((versions) => `plan ${versions[0]!.id}`),
    ...tables.features.map((row) => `feature ${row.id}`),
    ...tables.referralPrograms.map((row) => `referral_program ${row.id}`),
    ...tables.rewards.map((row) => `reward ${row.id}`),
  ].sort();
}
