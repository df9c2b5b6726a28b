/**
 * Issue 17, round two, balances and features scenarios: a deviation their preconditions used to hide
 * now FAILs its rule, and behaviour the document (and the reference) allows passes. Against the fake,
 * with faults built here (the reference's behaviour, or a bug the scenario used to block on).
 */
import { describe, expect, it } from 'vitest';
import { plainCheckFault } from './balances-verdicts-faults.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { SCENARIOS } from '../scenarios/index.ts';
import { runAgainstFake } from './against-fake.ts';

const byId = (id: string) => {
  const found = SCENARIOS.find((s) => s.id === id);
  if (found === undefined) throw new Error(`no scenario ${id}`);
  return found;
};

async function verdictsOf(id: string, faults: readonly (string | Fault)[]) {
  const [outcome] = await runAgainstFake(faults, [byId(id)]);
  return outcome!.verdicts;
}

describe('balances and features verdicts (issue 17 round two)', () => {
  it('a purchase cap that denies the whole cap FAILs CHECK-OVERAGE-PURCHASE-CAP (it was a precondition, BLOCKED)', async () => {
    const verdicts = await verdictsOf('balances.overage-stops-at-purchase-cap', [plainCheckFault('CHECK-OVERAGE-PURCHASE-CAP', 'the cap counts one unit short', (check, input, result) =>
      result.allowed && result.balance?.overage_allowed === true && !check({ ...input, required_balance: input.required_balance + 1 }).allowed ? { ...result, allowed: false } : result,
    )]);
    expect(verdicts['CHECK-OVERAGE-PURCHASE-CAP']).toMatchObject({ status: 'FAIL', message: expect.stringContaining('the whole cap of 10') });
  }, 60_000);

  it('send_event ignored FAILs CHECK-SEND-EVENT-RECORDS where spend() used to block the scenario', async () => {
    const verdicts = await verdictsOf('balances.check-consumable', ['CHECK-SEND-EVENT-RECORDS']);
    expect(verdicts['CHECK-SEND-EVENT-RECORDS']).toMatchObject({ status: 'FAIL' });
  }, 60_000);

  it('a target that accepts a boolean feature in a credit schema (the reference) passes FEAT-CREDIT-SCHEMA-VALID', async () => {
    const acceptsBoolean: Fault = {
      rule: 'FEAT-CREDIT-SCHEMA-VALID',
      breaks: 'a boolean feature in a credit schema is accepted (left out of the schema), as the reference accepts it',
      handlers: {
        'features.create': (real) => (ctx, input) =>
          real(ctx, input.credit_schema === undefined ? input : { ...input, credit_schema: input.credit_schema.filter((entry) => ctx.store.features.get(entry.metered_feature_id)?.type !== 'boolean') }),
      },
    };
    const verdicts = await verdictsOf('features.credit-schema-refused', [acceptsBoolean]);
    expect(verdicts['FEAT-CREDIT-SCHEMA-VALID']).toEqual({ status: 'PASS' });
  }, 60_000);

  it('CHECK-ENTITY-SCOPED is decided on a target that does not serve subscriptions.list (the reference answers it 401, empty)', async () => {
    const notServed: Fault = {
      rule: 'LIST-SUBSCRIPTION-SHAPE',
      breaks: 'subscriptions.list is not served: 401 with an empty body, as the 2.3.0 reference answers an unknown path',
      response: (response, request) => (new URL(request.url).pathname.endsWith('/subscriptions.list') ? new Response(null, { status: 401 }) : response),
    };
    const verdicts = await verdictsOf('balances.check-entity-scoped', [notServed]);
    expect(verdicts['CHECK-ENTITY-SCOPED']).toEqual({ status: 'PASS' });
    const failing = await verdictsOf('balances.check-entity-scoped', [notServed, 'CHECK-ENTITY-SCOPED']);
    expect(failing['CHECK-ENTITY-SCOPED']).toMatchObject({ status: 'FAIL' });
  }, 60_000);

  it('CHECK-BREAKDOWN-RESET needs no paid plan (no paid-attach capability), and one of its scenarios needs nothing at all', () => {
    const carrying = SCENARIOS.filter((s) => (s.rules as readonly string[]).includes('CHECK-BREAKDOWN-RESET'));
    expect(carrying.flatMap((s) => s.needs ?? [])).not.toContain('paid-attach');
    expect(carrying.some((s) => (s.needs ?? []).length === 0)).toBe(true);
  });
});
