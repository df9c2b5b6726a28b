/**
 * Checks the rule catalogue against fixtures/interface.md. Each check is a pure function that lists
 * problems; every test runs it on the real catalogue (expecting none) and on a broken input
 * (expecting some), so no check can pass vacuously.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operations } from '../operations.ts';
import { KNOWN_DIFFERENCES } from '../reference/differences.ts';
import {
  QUOTE_FRAGMENT_SEPARATOR,
  RULES,
  RULES_BY_PART,
  interfaceSections,
  isTestable,
  ruleById,
  splitInterfaceSections,
  type InterfaceSection,
} from './catalogue.ts';
import type { Part, RuleDef } from './rule.ts';

const INTERFACE = readFileSync(new URL('../../fixtures/interface.md', import.meta.url), 'utf8');
const EXCHANGES_DIR = new URL('../../fixtures/reference-exchanges/', import.meta.url);
const ALL: readonly RuleDef[] = RULES;


const PREFIXES: Record<Part, readonly string[]> = {
  conventions: ['CONV'],
  auth: ['AUTH'],
  versioning: ['VER'],
  errors: ['ERR'],
  states: ['STATE'],
  licenses: ['LIC'],
  listings: ['LIST'],
  entities: ['ENT'],
  preview: ['PREV'],
  plans: ['PLAN'],
  features: ['FEAT'],
  balances: ['CHECK', 'BAL'],
  referrals: ['REF'],
  customers: ['CUS'],
  billing: ['BILL'],
  events: ['EVT'],
};

const ID_FORMAT = /^[A-Z]+(-[A-Z0-9]+)+$/;

// ---------------------------------------------------------------------------------------------
// Checks

function normaliseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function idProblems(rules: readonly RuleDef[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const rule of rules) {
    if (seen.has(rule.id)) problems.push(`${rule.id}: duplicate id`);
    seen.add(rule.id);
    if (!ID_FORMAT.test(rule.id)) problems.push(`${rule.id}: not of the form ${ID_FORMAT}`);
    const prefix = rule.id.split('-')[0] ?? '';
    if (!PREFIXES[rule.part].includes(prefix)) problems.push(`${rule.id}: prefix ${prefix} does not belong to part ${rule.part}`);
  }
  return problems;
}

/**
 * A documented quote is one or more fragments joined by " … "; each fragment, whitespace-normalised,
 * must occur verbatim in the rule's own section, after the previous one. Table cells are quoted
 * without their pipes, so a quote containing a pipe is refused (it would hide a paraphrased row).
 */
function quoteProblem(rule: RuleDef, sections: ReadonlyMap<string, InterfaceSection>): string | undefined {
  if (rule.quote.includes('|')) return 'quote contains a table pipe; quote cells joined by " … "';
  const section = sections.get(rule.section);
  if (!section) return `unknown section "${rule.section}"`;
  const text = normaliseWhitespace(section.lines.join('\n'));
  let from = 0;
  for (const raw of rule.quote.split(QUOTE_FRAGMENT_SEPARATOR)) {
    const fragment = normaliseWhitespace(raw);
    if (fragment === '') return 'empty quote fragment';
    const at = text.indexOf(fragment, from);
    if (at < 0) return `"${fragment}" is not in section "${rule.section}"${from > 0 ? ' after the previous fragment' : ''}`;
    from = at + fragment.length;
  }
  return undefined;
}

function quoteProblems(rules: readonly RuleDef[], markdown: string): string[] {
  const sections = new Map(splitInterfaceSections(markdown).map((section) => [section.name, section]));
  return rules
    .filter((rule) => rule.provenance === 'documented')
    .flatMap((rule) => {
      const problem = quoteProblem(rule, sections);
      return problem === undefined ? [] : [`${rule.id}: ${problem}`];
    });
}

function unknownSections(rules: readonly RuleDef[], markdown: string): string[] {
  const known = new Set(interfaceSections(markdown));
  return rules.filter((rule) => !known.has(rule.section)).map((rule) => `${rule.id}: unknown section "${rule.section}"`);
}

/**
 * Sections with no rule and no exclusion. A `##` heading with no text of its own (only `###`
 * subsections) counts as covered when one of its subsections is.
 */
function uncoveredSections(rules: readonly RuleDef[], markdown: string): string[] {
  const used = new Set(rules.map((rule) => rule.section));
  return splitInterfaceSections(markdown)
    .filter((section) => {
      if (used.has(section.name)) return false;
      const hasOwnText = section.lines.slice(1).some((line) => line.trim() !== '');
      const coveredBelow = [...used].some((name) => name.startsWith(`${section.name} > `));
      return hasOwnText || !coveredBelow;
    })
    .map((section) => section.name);
}

function provenanceProblems(rules: readonly RuleDef[]): string[] {
  return rules.flatMap((rule) => {
    const problems: string[] = [];
    if (rule.provenance === 'reference') {
      if (rule.level !== 'SHOULD') problems.push(`${rule.id}: reference rules are SHOULD at most`);
      if (!rule.source) problems.push(`${rule.id}: reference rule without a source`);
      if (rule.source?.startsWith('exchanges/') && !existsSync(new URL(rule.source.slice('exchanges/'.length), EXCHANGES_DIR))) {
        problems.push(`${rule.id}: no such exchange ${rule.source}`);
      }
    } else if (rule.source !== undefined) {
      problems.push(`${rule.id}: a documented rule quotes interface.md and takes no reference source`);
    }
    return problems;
  });
}

function exclusionProblems(rules: readonly RuleDef[]): string[] {
  return rules
    .filter((rule) => rule.excluded !== undefined && rule.excluded.trim().length < 20)
    .map((rule) => `${rule.id}: an exclusion needs a reason`);
}

// ---------------------------------------------------------------------------------------------
// Tests

describe('rule IDs', () => {
  it('are unique, well-formed and prefixed by their part', () => {
    expect(idProblems(ALL)).toEqual([]);
    const [first, second] = ALL;
    expect(first && second).toBeTruthy();
    expect(idProblems([first!, { ...second!, id: first!.id }])).toHaveLength(1);
    expect(idProblems([{ ...first!, id: 'lic-lowercase' }])).not.toEqual([]);
    expect(idProblems([{ ...first!, id: 'PLAN-IN-WRONG-PART', part: 'licenses' }])).toEqual([
      'PLAN-IN-WRONG-PART: prefix PLAN does not belong to part licenses',
    ]);
  });

  it('sit in the file of their part', () => {
    const misplaced = Object.entries(RULES_BY_PART).flatMap(([part, rules]) =>
      (rules as readonly RuleDef[]).filter((rule) => rule.part !== part).map((rule) => `${rule.id} in ${part}.ts`),
    );
    expect(misplaced).toEqual([]);
    expect(Object.values(RULES_BY_PART).reduce((sum, rules) => sum + rules.length, 0)).toBe(ALL.length);
  });

  it('are indexed by ruleById', () => {
    expect(ruleById.size).toBe(ALL.length);
    expect(ruleById.get('LIC-ATTACH-CAPACITY')?.part).toBe('licenses');
    expect(ruleById.get('NO-SUCH-RULE')).toBeUndefined();
  });

  it('include the IDs the fake and the suite are keyed by', () => {
    const required = [
      'LIC-ATTACH-SKIP-ASSIGNED',
      'LIC-ATTACH-MIXED-BATCH',
      'LIC-ATTACH-ALL-ASSIGNED-OK',
      'LIC-ATTACH-DUPLICATE-IDS',
      'LIC-ATTACH-CAPACITY',
      'LIC-LIST-SHAPE',
      'LIC-ATTACH-SHAPE',
      'LIST-SUBSCRIPTION-SHAPE',
      'LIST-PURCHASE-SHAPE',
      'ENT-LIST-SHAPE',
      'PREV-RESULT-SHAPE',
      'PLAN-SHAPE',
      'FEAT-SHAPE',
      'CHECK-RESULT-SHAPE',
      'REF-SHAPE',
      'ERR-BODY-SHAPE',
    ];
    expect(required.filter((id) => !ruleById.has(id))).toEqual([]);
  });
});

describe('documented quotes', () => {
  it('appear verbatim in their section of fixtures/interface.md', () => {
    expect(quoteProblems(ALL, INTERFACE)).toEqual([]);
  });

  it('fail when paraphrased, moved to another section, or quoted with pipes', () => {
    const rule = ruleById.get('LIC-ATTACH-CAPACITY')!;
    expect(quoteProblems([rule], INTERFACE)).toEqual([]);
    expect(quoteProblems([{ ...rule, quote: '(4) insufficient capacity for new assignments returns an error' }], INTERFACE)).toHaveLength(1);
    expect(quoteProblems([{ ...rule, section: 'Endpoints > POST /v1/licenses.release' }], INTERFACE)).toHaveLength(1);
    const row = ruleById.get('LIC-LIST-REQUIRED-FIELDS')!;
    expect(quoteProblems([{ ...row, quote: 'customer_id | string | yes' }], INTERFACE)).toHaveLength(1);
    // Fragments must keep the document's order.
    expect(quoteProblems([{ ...row, quote: 'yes … customer_id' }], INTERFACE)).toHaveLength(1);
  });

  it('tolerate only whitespace differences', () => {
    const rule = ruleById.get('STATE-PAST-DUE-NOT-A-STATUS')!;
    expect(quoteProblems([{ ...rule, quote: '`past_due`  is a filter\nvalue, not a status.' }], INTERFACE)).toEqual([]);
    expect(quoteProblems([{ ...rule, quote: '`past_due` is a filter value, not a Status.' }], INTERFACE)).toHaveLength(1);
  });
});

describe('sections', () => {
  it('are read from the ## and ### headings, with the conventions preamble and each part\'s gaps', () => {
    const sections = interfaceSections(INTERFACE);
    expect(sections[0]).toBe('Conventions');
    expect(sections).toContain('Endpoints > POST /v1/licenses.attach');
    expect(sections).toContain('Resources and their fields > Multi-update preview result');
    expect(new Set(sections).size).toBe(sections.length);
    const byName = new Map(splitInterfaceSections(INTERFACE).map((section) => [section.name, section.lines.join('\n')]));
    // A part's gap list belongs to the part, not to its last subsection.
    expect(byName.get('Resources and their fields')).toContain('Invoice record fields: not shown.');
    expect(byName.get('Resources and their fields > Multi-update preview result')).not.toContain('Invoice record fields');
    expect(byName.get('Endpoints')).toContain('Ordering of list results: not shown.');
  });

  it('name a section of interface.md on every rule', () => {
    expect(unknownSections(ALL, INTERFACE)).toEqual([]);
    expect(unknownSections([{ ...ALL[0]!, section: 'Endpoints > POST /v1/licenses.detach' }], INTERFACE)).toHaveLength(1);
  });

  it('each have at least one rule or exclusion', () => {
    expect(uncoveredSections(ALL, INTERFACE)).toEqual([]);
    expect(uncoveredSections(ALL, `${INTERFACE}\n## Webhooks\n\nThe service signs every webhook.\n`)).toEqual(['Webhooks']);
    const withoutErrors = ALL.filter((rule) => rule.section !== 'Errors');
    expect(uncoveredSections(withoutErrors, INTERFACE)).toEqual(['Errors']);
  });
});

describe('provenance and levels', () => {
  it('reference rules are SHOULD and name an existing source; documented rules take none', () => {
    expect(provenanceProblems(ALL)).toEqual([]);
    const reference = ruleById.get('ERR-BODY-SHAPE')!;
    expect(provenanceProblems([{ ...reference, level: 'MUST' }])).toHaveLength(1);
    expect(provenanceProblems([{ ...reference, source: undefined }])).toHaveLength(1);
    expect(provenanceProblems([{ ...reference, source: 'exchanges/999-no-such-exchange.json' }])).toHaveLength(1);
    expect(provenanceProblems([{ ...ruleById.get('LIC-ATTACH-CAPACITY')!, source: 'observed-behaviour §3.2' }])).toHaveLength(1);
  });

  it('excluded rules give a reason and are not testable', () => {
    expect(exclusionProblems(ALL)).toEqual([]);
    const excluded = ALL.filter((rule) => rule.excluded !== undefined);
    expect(excluded.length).toBeGreaterThan(0);
    expect(excluded.every((rule) => !isTestable(rule))).toBe(true);
    expect(exclusionProblems([{ ...excluded[0]!, excluded: ' ' }])).toHaveLength(1);
  });
});

describe('operations (the compiler checks that rules name only operations of the table)', () => {
  it('name, in the operation table, a shape rule that exists, is testable and concerns them', () => {
    const problems = Object.values(operations).flatMap((op) => {
      const rule = ruleById.get(op.shapeRule);
      if (rule === undefined) return [`${op.name}: unknown shape rule ${op.shapeRule}`];
      if (!isTestable(rule)) return [`${op.name}: shape rule ${op.shapeRule} is excluded`];
      return (rule.operations as readonly string[]).includes(op.name) ? [] : [`${op.name}: ${op.shapeRule} does not name it`];
    });
    expect(problems).toEqual([]);
  });

  it('every known difference of the reference concerns a rule of the catalogue', () => {
    expect(KNOWN_DIFFERENCES.filter((difference) => !ruleById.has(difference.rule)).map((d) => d.id)).toEqual([]);
  });
});

describe('size', () => {
  it('covers the document with well over 60 rules', () => {
    expect(ALL.length).toBeGreaterThan(60);
    expect(ALL.filter((rule) => rule.provenance === 'documented' && isTestable(rule)).length).toBeGreaterThan(60);
  });
});
