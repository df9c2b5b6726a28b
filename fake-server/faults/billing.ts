/** Broken variants of the billing.attach rules. */
import { type Fault, rewriteOutput } from './fault.ts';

export const billingFaults: readonly Fault[] = [
  {
    rule: 'BILL-ATTACH-FREE',
    breaks: 'billing.attach of a free plan answers a checkout payment_url, as if a payment were needed',
    output: rewriteOutput('billing.attach', (body) => ({ ...body, payment_url: `https://checkout.fake.invalid/pay/${body.customer_id}` })),
  },
  {
    rule: 'BILL-ATTACH-ENTITY',
    breaks: 'billing.attach with entity_id attaches the plan to the customer, though it answers with the entity_id',
    handlers: {
      'billing.attach': (real) => (ctx, { entity_id: entityId, ...input }) => ({ ...real(ctx, input), ...(entityId !== undefined && { entity_id: entityId }) }),
    },
  },
  {
    rule: 'BILL-ATTACH-SHAPE',
    breaks: 'billing.attach leaves customer_id out of its answer',
    output: rewriteOutput('billing.attach', ({ customer_id: _, ...result }) => result),
  },
];
