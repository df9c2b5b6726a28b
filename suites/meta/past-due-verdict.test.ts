/**
 * An overdue subscription that reads a status other than active (issue 25: one bug, one rule): a
 * status of `past_due` breaks STATE-PAST-DUE-NOT-A-STATUS, any other breaks
 * STATE-PAST-DUE-READS-ACTIVE ("reads as status = active with past_due = true"), and only it.
 */
import { describe, expect, it } from 'vitest';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { rewriteOutput } from '../../fake-server/faults/fault.ts';
import { SCENARIOS } from '../scenarios/index.ts';
import { failSet, runAgainstFake } from './against-fake.ts';

const scenarios = SCENARIOS.filter((scenario) => scenario.rules.includes('STATE-PAST-DUE-READS-ACTIVE'));

describe('an overdue subscription that reads status scheduled, past_due true', () => {
  const readsScheduled: Fault = {
    rule: 'STATE-PAST-DUE-READS-ACTIVE',
    breaks: 'an overdue subscription reads status "scheduled"',
    output: rewriteOutput('subscriptions.list', (page: { list: Record<string, unknown>[] }) => ({ ...page, list: page.list.map((row) => (row['past_due'] === true ? { ...row, status: 'scheduled' } : row)) })),
  };

  it('FAILs STATE-PAST-DUE-READS-ACTIVE, not STATE-PAST-DUE-NOT-A-STATUS', async () => {
    expect(scenarios.length).toBeGreaterThan(0);
    const failing = failSet(await runAgainstFake([readsScheduled], scenarios));
    expect(failing).toContain('STATE-PAST-DUE-READS-ACTIVE');
    expect(failing).not.toContain('STATE-PAST-DUE-NOT-A-STATUS');
  });
});
