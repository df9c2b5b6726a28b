/** The fuzz test (run.ts) of the operations that change state, and the bases their bodies derive from. */
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../spec/operations.ts';
import { createFakeApp } from '../index.ts';
import { ACCEPTED_BODIES } from './bodies.ts';
import { fuzzTest, READ_ONLY, SEED_CALLS, T0 } from './run.ts';

describe('the fuzz bases', () => {
  it('every accepted base is accepted by the seeded fake, so the variants derived from it reach the domain', async () => {
    for (const operation of OPERATION_NAMES) {
      for (const body of ACCEPTED_BODIES[operation]) {
        const fake = createFakeApp({ now: T0, frozen: true, seed: SEED_CALLS, validateResponses: true });
        const request = new Request(`http://fake.invalid/v1/${operation}`, { method: 'POST', headers: { authorization: `Bearer ${fake.keys[0]!.key}` }, body: JSON.stringify(body) });
        const response = await fake.fetch(request);
        expect(response.status, `${operation} ${JSON.stringify(body)}: ${await response.text()}`).toBe(200);
      }
    }
  });
});

fuzzTest(OPERATION_NAMES.filter((operation) => !READ_ONLY.has(operation)));
