/**
 * The shape of one entry of the rule catalogue. The catalogue gives every normative statement of
 * interface.md a stable ID; the fake's broken variants, the suite's scenarios and the report are
 * all keyed by these IDs.
 */
import type { Provenance, ReferenceSource } from '../meta.ts';
import type { OperationName } from '../operations.ts';
import type { Part } from '../part.ts';

export type { Part } from '../part.ts';

/** MUST: stated explicitly by interface.md. SHOULD: inferred from it, or taken only from the reference. */
export type RuleLevel = 'MUST' | 'SHOULD';

export interface RuleDef {
  /** Stable ID, upper-case words joined by hyphens, prefixed by the part (e.g. `LIC-ATTACH-SKIP-ASSIGNED`). Never reused. */
  readonly id: string;
  readonly level: RuleLevel;
  readonly provenance: Provenance;
  readonly part: Part;
  /** The interface.md heading the statement sits under, as `## Heading` or `## Heading > ### Sub-heading` text without the hashes. */
  readonly section: string;
  /**
   * For documented rules, the sentence(s) quoted verbatim from interface.md (table cells allowed, without the pipes).
   * For reference rules, the observed behaviour in one sentence.
   */
  readonly quote: string;
  /** Reference rules: where the behaviour was observed. */
  readonly source?: ReferenceSource;
  /**
   * Operations (`licenses.attach`, …) the rule constrains; empty for rules about every operation. A
   * rule owns the behaviour of its operations in a scenario: no precondition of a scenario carrying
   * it may assert that behaviour, and an operation of its own that is not served makes it SKIP
   * (suites/framework/checks.ts).
   */
  readonly operations: readonly OperationName[];
  /**
   * Fields of its operations' answers the rule states something about (dot paths, `*` for any list
   * index: `list.*.status`), when one of them missing is the rule's own deviation: its check then
   * FAILs instead of being BLOCKED by the answer's shape rule (suites/framework/checks.ts, "Missing fields").
   */
  readonly fields?: readonly string[];
  /** Set when the statement cannot be tested over HTTP; says why. Excluded rules need no scenario. */
  readonly excluded?: string;
}
