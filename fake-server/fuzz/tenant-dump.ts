/**
 * A deterministic dump of one tenant of the fake, read through its public operations (and the
 * control plane's `events.list`): everything a later request could observe. Two tenants that answer
 * every read alike dump alike. Customers cannot be listed through the interface, so the caller names
 * the ones to read (every customer ID it has sent); referral programs likewise.
 */
import type { OperationName } from '../../spec/operations.ts';

export type Reader = (path: string, body: unknown) => Promise<{ status: number; body: unknown }>;

export interface DumpScope {
  readonly customerIds: Iterable<string>;
  readonly referralProgramIds: Iterable<string>;
}

const ALL_STATUSES = ['active', 'scheduled', 'past_due', 'expired'];

/** Every page of a cursor-paginated read, in order. */
async function allPages(read: Reader, path: string, body: Record<string, unknown>): Promise<unknown[]> {
  const pages: unknown[] = [];
  let cursor = '';
  for (;;) {
    const { status, body: page } = await read(path, { ...body, start_cursor: cursor });
    pages.push([status, page]);
    const next = (page as { has_more?: boolean; next_cursor?: string | null }) ?? {};
    if (status !== 200 || next.has_more !== true || typeof next.next_cursor !== 'string') return pages;
    cursor = next.next_cursor;
  }
}

export async function tenantDump(read: Reader, scope: DumpScope): Promise<string> {
  const v1 = (operation: OperationName, body: unknown) => read(`/v1/${operation}`, body);
  const entries: [string, unknown][] = [
    ['features', await v1('features.list', {})],
    ['plans', await v1('plans.list', { include_archived: true, all_versions: true })],
    ['subscriptions', await allPages(read, '/v1/subscriptions.list', { statuses: ALL_STATUSES, limit: 200 })],
    ['purchases', await allPages(read, '/v1/purchases.list', { statuses: ALL_STATUSES, limit: 200 })],
    ['entities', await allPages(read, '/v1/entities.list', { limit: 5_000 })],
    ['events', await allPages(read, '/_fake/events.list', { limit: 1_000 })],
  ];
  for (const customerId of [...new Set(scope.customerIds)].sort()) {
    entries.push([`customer ${customerId}`, await v1('customers.get', { customer_id: customerId })]);
    entries.push([`licenses ${customerId}`, await v1('licenses.list', { customer_id: customerId })]);
    for (const active of [true, false]) {
      entries.push([`assignments ${customerId} ${active}`, await v1('licenses.list_assignments', { customer_id: customerId, active })]);
    }
  }
  for (const programId of [...new Set(scope.referralProgramIds)].sort()) {
    entries.push([`referral program ${programId}`, await v1('referral_programs.get', { referral_program_id: programId })]);
  }
  return JSON.stringify(entries);
}
