/**
 * The wire names interface.md does not show (spec/wire-names.ts) name real request fields of
 * documented operations, and every top-level request field the schemas take from the reference (or
 * chose) where the document shows no name has a key.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { provenanceOf } from './meta.ts';
import { operations } from './operations.ts';
import { renameRequestFields, WIRE_NAME_PATTERN, WIRE_NAMES, type WireNameKey } from './wire-names.ts';

/** Request fields marked reference whose name the document does show (in a body table): their inner shape is the reference's, not their name. */
const NAMED_BY_THE_DOCUMENT = ['features.create.model_markups'];

/** Whether a field's schema, or what it wraps (optional, nullable, default, the items of an array), is marked as taken from the reference or chosen. */
function notDocumented(field: z.ZodType): boolean {
  if (provenanceOf(field) !== 'documented') return true;
  if (field instanceof z.ZodOptional || field instanceof z.ZodNullable || field instanceof z.ZodDefault) return notDocumented(field.unwrap() as z.ZodType);
  if (field instanceof z.ZodArray) return notDocumented(field.element as z.ZodType);
  return false;
}

function shapeOf(operation: keyof typeof operations): Record<string, z.ZodType> {
  const request = operations[operation].request as z.ZodType;
  if (!(request instanceof z.ZodObject)) throw new Error(`${operation}: the request is not an object schema`);
  return request.shape as Record<string, z.ZodType>;
}

describe('wire names interface.md does not show', () => {
  it('each names a top-level request field of a documented operation, spelled as a JSON key', () => {
    for (const [key, { operation, reference }] of Object.entries(WIRE_NAMES)) {
      expect(operations[operation].provenance, key).toBe('documented');
      expect(Object.keys(shapeOf(operation)), key).toContain(reference);
      expect(reference, key).toMatch(WIRE_NAME_PATTERN);
      expect(key.startsWith(`${operation}.`), key).toBe(true);
    }
  });

  it('cover every top-level request field of a documented operation whose name the schemas take from the reference', () => {
    const covered = new Set(Object.values(WIRE_NAMES).map((w) => `${w.operation}.${w.reference}`));
    const marked = Object.values(operations)
      .filter((op) => op.provenance === 'documented')
      .flatMap((op) => Object.entries(shapeOf(op.name as keyof typeof operations)).filter(([, field]) => notDocumented(field)).map(([name]) => `${op.name}.${name}`));
    expect(marked.filter((field) => !covered.has(field) && !NAMED_BY_THE_DOCUMENT.includes(field))).toEqual([]);
  });

  it('rename the configured fields of their own operation only, and nothing else', () => {
    const names: Partial<Record<WireNameKey, string>> = { 'entities.list.plan_filter': 'plan_filter', 'balances.check.lock_settings': 'lock' };
    expect(renameRequestFields('entities.list', { customer_id: 'c', plans: [{ id: 'p' }], search: 'x' }, names)).toEqual({ customer_id: 'c', plan_filter: [{ id: 'p' }], search: 'x' });
    expect(renameRequestFields('subscriptions.list', { plans: [] }, names)).toEqual({ plans: [] });
    const body = { customer_id: 'c', feature_id: 'f', lock: { lock_id: 'l', enabled: true } };
    expect(renameRequestFields('balances.check', body, names)).toBe(body);
  });
});
