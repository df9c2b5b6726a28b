/**
 * The ownership map is complete and honest: every node the projection compares, in every
 * operation's answer, resolves to a rule of the catalogue (or says why the document does not decide
 * it); rules the maps name exist and are testable; reference-only shapes and reference-only answers
 * can fail only SHOULD rules (or MUST rules the catalogue says constrain that operation); and no
 * entry names a node no answer has, so the map never goes stale.
 */
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES, operations } from '../../spec/operations.ts';
import { ruleById } from '../../spec/rules/catalogue.ts';
import { answerShape, comparedNodes, controlAnswerShape, nodesOf } from './fields.ts';
import { FIELD_OWNERS, isShould, namedRules, OPERATION_RULES, ownershipOf, type FieldOwner } from './ownership.ts';

const everyNode = [
  ...OPERATION_NAMES.flatMap((operation) => comparedNodes(answerShape(operation)).map((node) => ({ operation, node }))),
  // The usage events are compared as the events of balances.check (interface.md, Events).
  ...comparedNodes(controlAnswerShape('events.list')).map((node) => ({ operation: 'balances.check' as const, node })),
];

describe('the ownership map of the exploration', () => {
  it('resolves every compared node of every answer', () => {
    const unowned = everyNode.filter(({ node }) => ownershipOf(node.key) === undefined).map(({ operation, node }) => `${operation}: ${node.key}`);
    expect(unowned).toEqual([]);
  });

  it('names only testable rules of the catalogue', () => {
    const bad = namedRules().filter((rule) => ruleById.get(rule) === undefined || ruleById.get(rule)!.excluded !== undefined);
    expect(bad).toEqual([]);
  });

  it('lets a reference-only shape fail only SHOULD rules, unless the document shows the value itself', () => {
    const wrong = everyNode.flatMap(({ operation, node }) => {
      const ownership = ownershipOf(node.key);
      if (ownership === undefined || 'notCompared' in ownership || node.provenance === 'documented') return [];
      const owner = ownership as FieldOwner;
      const judged = [...(owner.documentedValue ? [] : [owner.rule]), ...(owner.nullRule ? [owner.nullRule] : [])];
      const fallback = OPERATION_RULES[operation];
      return judged.every((rule) => isShould(rule) || isShould(fallback)) ? [] : [`${operation}: ${node.key} → ${judged.join(', ')}`];
    });
    expect(wrong).toEqual([]);
  });

  it('gives every operation a rule that constrains it, SHOULD for the reference setup operations', () => {
    for (const operation of OPERATION_NAMES) {
      const rule = ruleById.get(OPERATION_RULES[operation])!;
      if (operations[operation].provenance === 'reference') expect(rule.level, operation).toBe('SHOULD');
      expect(rule.operations as readonly string[], `${operation} → ${rule.id}`).toContain(operation);
    }
  });

  it('names no node that no answer has', () => {
    const keys = new Set([...OPERATION_NAMES.flatMap((operation) => nodesOf(answerShape(operation)).map((node) => node.key)), ...nodesOf(controlAnswerShape('events.list')).map((node) => node.key)]);
    const stale = Object.keys(FIELD_OWNERS).filter((key) => {
      if (!key.endsWith('.*')) return !keys.has(key);
      const prefix = key.slice(0, -2);
      return ![...keys].some((k) => k.startsWith(`${prefix}.`) || k === prefix);
    });
    expect(stale).toEqual([]);
  });
});
