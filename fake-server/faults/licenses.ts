/** Broken variants of the license rules. */
import { fail } from '../domain/context.ts';
import { activeAssignmentOf, assignSeat, livePoolsOf, poolView } from '../domain/licenses.ts';
import type { Fault } from './fault.ts';

export const licenseFaults: readonly Fault[] = [
  {
    rule: 'LIC-ATTACH-SKIP-ASSIGNED',
    breaks: 'an entity that already holds the license is not skipped: it takes, and consumes, another seat',
    handlers: {
      'licenses.attach': (real) => (ctx, input) => {
        const pool = livePoolsOf(ctx.store, input.customer_id).find((candidate) => candidate.licensePlanId === input.plan_id);
        const reassigned = input.entities.filter((e) => activeAssignmentOf(ctx.store, input.customer_id, e.entity_id, input.plan_id) !== undefined);
        if (pool === undefined || reassigned.length === 0) return real(ctx, input);
        if (poolView(ctx.store, pool).remaining < input.entities.length) fail('invalid_request', 'No available licenses for this plan.');
        const result = real(ctx, input);
        for (const entity of reassigned) assignSeat(ctx, pool, entity.entity_id);
        return result;
      },
    },
  },
];
