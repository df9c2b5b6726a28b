/** Rules of the Events part: usage events recorded by checks, and event names declared by features. */
import type { RuleDef } from './rule.ts';

const EVENTS = 'Events';

export const eventsRules = [
  {
    // Inferred converse: only send_event records; a plain check leaves the balance as it was.
    id: 'EVT-ONLY-WITH-SEND-EVENT',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'events',
    section: EVENTS,
    quote: 'The service records usage events when `balances.check` is called with `send_event` true',
    operations: ['balances.check'],
  },
  {
    id: 'EVT-AMOUNT-IS-REQUIRED-BALANCE',
    level: 'MUST',
    provenance: 'documented',
    part: 'events',
    section: EVENTS,
    quote: 'the recorded amount equals `required_balance`',
    operations: ['balances.check'],
  },
  {
    id: 'EVT-EVENT-NAMES',
    level: 'MUST',
    provenance: 'documented',
    part: 'events',
    section: EVENTS,
    quote: 'Features can declare event names that trigger their balance, so that one event can drive several features.',
    operations: ['features.create', 'balances.track', 'balances.check'],
  },
  {
    id: 'EVT-OUTBOUND-NOT-SHOWN',
    level: 'MUST',
    provenance: 'documented',
    part: 'events',
    section: EVENTS,
    quote: 'Outbound events or webhooks sent by the service: not shown.',
    operations: [],
    excluded: 'No outbound event or webhook is described, and the suite has no endpoint to receive them.',
  },
] as const satisfies readonly RuleDef[];
