import { describe, expect, it } from 'vitest';
import { constraintProvenance } from './constraint-provenance.ts';

describe('constraintProvenance', () => {
  it('documented bounds and enumerations of documented fields are documented', () => {
    expect(constraintProvenance('entities.list', ['limit'])).toBe('documented');
    expect(constraintProvenance('subscriptions.list', ['limit'])).toBe('documented');
    expect(constraintProvenance('plans.create', ['items', 0, 'price', 'billing_method'])).toBe('documented');
  });

  it('fields filled in from the reference are reference, at any depth and through array items', () => {
    expect(constraintProvenance('entities.list', ['processors', 0])).toBe('reference');
    expect(constraintProvenance('plans.create', ['free_trial', 'duration_type'])).toBe('reference');
  });
});
