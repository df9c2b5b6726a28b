/**
 * PLAN-ITEMS-ROUND-TRIP, for a purchase cap of 0 (issue 26, exchanges 174-175): the scenario that
 * sends one passes against the fake and FAILs against the fake whose PLAN-ITEMS-ROUND-TRIP fault
 * answers the cap as null, as the reference does.
 */
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../scenarios/index.ts';
import { runAgainstFake } from './against-fake.ts';

const capZero = SCENARIOS.filter((s) => s.id === 'plans.purchase-cap-zero');

describe('PLAN-ITEMS-ROUND-TRIP: a purchase cap of 0', () => {
  it('passes against the fake', async () => {
    const [outcome] = await runAgainstFake([], capZero);
    expect(outcome?.verdicts['PLAN-ITEMS-ROUND-TRIP']).toEqual({ status: 'PASS' });
  }, 60_000);

  it('FAILs when the cap reads back as null (no cap)', async () => {
    const [outcome] = await runAgainstFake(['PLAN-ITEMS-ROUND-TRIP'], capZero);
    expect(outcome?.verdicts['PLAN-ITEMS-ROUND-TRIP']).toMatchObject({ status: 'FAIL', message: expect.stringContaining('a purchase cap of 0 as 0') });
  }, 60_000);
});
