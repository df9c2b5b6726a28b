/**
 * Rules 1 to 3 of the States part. The rows of its table are rules of the parts they constrain
 * (LIST-STATUSES-FILTER, ENT-STATUSES-ENUM, the shape rules, PLAN-ARCHIVED-NOT-ATTACHABLE, VER-PLAN-ONE-ACTIVE).
 */
import type { RuleDef } from './rule.ts';

const STATES = 'States and transitions';

export const statesRules = [
  {
    id: 'STATE-PAST-DUE-NOT-A-STATUS',
    level: 'MUST',
    provenance: 'documented',
    part: 'states',
    section: STATES,
    quote: '`past_due` is a filter value, not a status.',
    operations: ['subscriptions.list', 'purchases.list', 'entities.list'],
  },
  {
    id: 'STATE-PAST-DUE-READS-ACTIVE',
    level: 'MUST',
    provenance: 'documented',
    part: 'states',
    section: STATES,
    quote: 'A past-due plan reads as `status` = `active` with `past_due` = true.',
    operations: ['subscriptions.list', 'entities.list'],
  },
  {
    id: 'STATE-DEFAULT-ACTIVE-SCHEDULED',
    level: 'MUST',
    provenance: 'documented',
    part: 'states',
    section: STATES,
    quote: 'Default listings return `active` and `scheduled` records',
    operations: ['subscriptions.list', 'purchases.list'],
  },
  {
    id: 'STATE-EXPIRED-ONLY-ON-REQUEST',
    level: 'MUST',
    provenance: 'documented',
    part: 'states',
    section: STATES,
    quote: '`expired` records (plans a customer no longer has) appear only when requested.',
    operations: ['subscriptions.list', 'purchases.list'],
  },
  {
    id: 'STATE-LICENSE-ATTACH-RELEASE',
    level: 'MUST',
    provenance: 'documented',
    part: 'states',
    section: STATES,
    quote: '`licenses.attach` assigns a license to an entity; `licenses.release` releases it.',
    operations: ['licenses.attach', 'licenses.release', 'licenses.list_assignments'],
  },
  {
    id: 'STATE-SKIP-NO-EXTRA-LICENSE',
    level: 'MUST',
    provenance: 'documented',
    part: 'states',
    section: STATES,
    quote:
      'An entity that already has an active assignment for the same license plan is skipped by `licenses.attach` without consuming another license.',
    operations: ['licenses.attach', 'licenses.list'],
  },
  {
    id: 'STATE-TRANSITIONS-NOT-SHOWN',
    level: 'MUST',
    provenance: 'documented',
    part: 'states',
    section: STATES,
    quote: 'Transitions: not shown.',
    operations: [],
    excluded: 'No transition is described, so there is nothing to assert beyond the listed values and rules.',
  },
] as const satisfies readonly RuleDef[];
