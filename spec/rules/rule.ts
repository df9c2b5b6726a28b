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
  /** Operations (`licenses.attach`, …) the rule constrains; empty for rules about every operation. */
  readonly operations: readonly OperationName[];
  /** Set when the statement cannot be tested over HTTP; says why. Excluded rules need no scenario. */
  readonly excluded?: string;
}
