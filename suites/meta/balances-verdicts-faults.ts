/** Faults the balances verdict meta-test builds over a plain balances.check (no send_event, no lock). */
import type { InputOf, OutputOf } from '../../fake-server/domain/context.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import type { RuleId } from '../../spec/rules/catalogue.ts';

type Check = (input: InputOf<'balances.check'>) => OutputOf<'balances.check'>;

/** Rewrites the answer of a plain check; `check` asks the real fake another plain check (no side effect). */
export function plainCheckFault(rule: RuleId, breaks: string, rewrite: (check: Check, input: InputOf<'balances.check'>, result: OutputOf<'balances.check'>) => OutputOf<'balances.check'>): Fault {
  return {
    rule,
    breaks,
    handlers: {
      'balances.check': (real) => (ctx, input) => {
        const result = real(ctx, input);
        if (input.send_event || input.lock !== undefined) return result;
        return rewrite((other) => real(ctx, other), input, result);
      },
    },
  };
}
