/**
 * The rule catalogue: every normative statement of interface.md (and every reference behaviour the
 * suite relies on) under a stable ID. The fake's broken variants, the suite's scenarios and the
 * report are keyed by these IDs.
 *
 * Where rules sit:
 * - a documented rule sits in the section its quote comes from (a test checks the quote there);
 * - a reference rule that fills a gap the document lists ("not shown") sits where that gap is listed
 *   (error codes under `Errors`, wire names of endpoint fields under `Endpoints`, names of resource
 *   fields under `Resources and their fields`);
 * - any other reference rule about a documented operation sits in that operation's section, and a
 *   rule about a reference setup endpoint (`customers.get_or_create`, …) under `Endpoints`.
 * A statement made twice by the document (e.g. "at most one version is active") gets one rule, at
 * the place that states it most fully.
 */
import type { Part, RuleDef } from './rule.ts';
import { authRules } from './auth.ts';
import { balancesRules } from './balances.ts';
import { billingRules } from './billing.ts';
import { conventionsRules } from './conventions.ts';
import { customersRules } from './customers.ts';
import { entitiesRules } from './entities.ts';
import { errorsRules } from './errors.ts';
import { eventsRules } from './events.ts';
import { featuresRules } from './features.ts';
import { licensesRules } from './licenses.ts';
import { listingsRules } from './listings.ts';
import { plansRules } from './plans.ts';
import { previewRules } from './preview.ts';
import { referralsRules } from './referrals.ts';
import { statesRules } from './states.ts';
import { versioningRules } from './versioning.ts';

/** The rules of each part, in the order of the `Part` type. */
export const RULES_BY_PART = {
  conventions: conventionsRules,
  auth: authRules,
  versioning: versioningRules,
  errors: errorsRules,
  states: statesRules,
  licenses: licensesRules,
  listings: listingsRules,
  entities: entitiesRules,
  preview: previewRules,
  plans: plansRules,
  features: featuresRules,
  balances: balancesRules,
  referrals: referralsRules,
  customers: customersRules,
  billing: billingRules,
  events: eventsRules,
} as const satisfies Record<Part, readonly RuleDef[]>;

type CatalogueRule = (typeof RULES_BY_PART)[Part][number];

export const RULES: readonly CatalogueRule[] = Object.values(RULES_BY_PART).flat();

export type RuleId = CatalogueRule['id'];

export const ruleById: ReadonlyMap<string, RuleDef> = new Map<string, RuleDef>(RULES.map((rule) => [rule.id, rule]));

/** Excluded rules name statements that cannot be tested over HTTP; they need no scenario. */
export function isTestable(rule: RuleDef): boolean {
  return rule.excluded === undefined;
}

/**
 * How a documented quote skips text: a quote is one or more verbatim fragments joined by this
 * separator, found in order within the rule's section. Table rows are quoted cell by cell this way
 * (`customer_id … yes`), never with the pipes, so a fragment cannot span two cells.
 */
export const QUOTE_FRAGMENT_SEPARATOR = ' … ';

/** One section of interface.md: its name in the `A > B` form of `RuleDef.section`, and its own lines (heading included). */
export interface InterfaceSection {
  readonly name: string;
  readonly lines: readonly string[];
}

/** The line that opens a part's list of gaps; the list belongs to the `##` part, not to its last `###`. */
const GAPS_LABEL = 'Gaps in this part:';

/**
 * Splits interface.md into sections, in document order:
 * - the preamble before the first `##` (the document's conventions) is one section, named by its
 *   `Label:` line (`Conventions`), or by the `#` title when it has none;
 * - each `##` heading is a section (`Errors`), each `###` under it is `## > ###`
 *   (`Endpoints > POST /v1/licenses.list`);
 * - a "Gaps in this part:" list belongs to the enclosing `##` section, since it speaks for the whole part.
 */
export function splitInterfaceSections(markdown: string): InterfaceSection[] {
  const lines = markdown.split(/\r?\n/);
  const order: string[] = [];
  const own = new Map<string, string[]>();
  const append = (name: string, line: string) => {
    let bucket = own.get(name);
    if (!bucket) {
      bucket = [];
      own.set(name, bucket);
      order.push(name);
    }
    bucket.push(line);
  };

  const firstPart = lines.findIndex((line) => line.startsWith('## '));
  const preamble = (firstPart < 0 ? lines : lines.slice(0, firstPart)).filter((line) => !line.startsWith('# '));
  const title = lines.find((line) => line.startsWith('# '))?.slice(2).trim();
  const label = preamble.map((line) => /^([A-Z][A-Za-z ]*):$/.exec(line.trim())?.[1]).find((match) => match !== undefined);
  const preambleName = label ?? title;
  if (preambleName !== undefined && preamble.some((line) => line.trim() !== '')) {
    for (const line of preamble) append(preambleName, line);
  }

  let part: string | undefined;
  let current: string | undefined;
  for (const line of firstPart < 0 ? [] : lines.slice(firstPart)) {
    if (line.startsWith('## ')) {
      part = line.slice(3).trim();
      current = part;
      append(current, part);
    } else if (line.startsWith('### ') && part !== undefined) {
      const heading = line.slice(4).trim();
      current = `${part} > ${heading}`;
      append(current, heading);
    } else if (current !== undefined) {
      if (line.trim() === GAPS_LABEL && part !== undefined) current = part;
      append(current, line);
    }
  }
  return order.map((name) => ({ name, lines: own.get(name) ?? [] }));
}

/** The section names of interface.md in the form `RuleDef.section` uses (`Endpoints > POST /v1/licenses.list`). */
export function interfaceSections(markdown: string): string[] {
  return splitInterfaceSections(markdown).map((section) => section.name);
}
