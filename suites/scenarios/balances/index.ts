/**
 * Conformance scenarios of balances: `balances.check` (documented), the setup calls `balances.track`
 * and `balances.finalize`, and the Events part (usage events recorded by checks, event names).
 *
 * Balances are read back through checks that consume nothing. Usage events have no read call in the
 * interface, so what they record is proven through the balance they move; the fake's control plane
 * (`events.list`) shows the events themselves where a scenario needs them.
 */
import { checkScenarios } from './check.ts';
import { eventsScenarios } from './events.ts';
import { locksScenarios } from './locks.ts';
import { entityScopeScenarios } from './entity-scope.ts';
import { trackScenarios } from './track.ts';
import { modelScenarios } from './model.ts';
import { repeatedWritesScenarios } from './repeated-writes.ts';

export const balancesScenarios = [...checkScenarios, ...eventsScenarios, ...locksScenarios, ...entityScopeScenarios, ...trackScenarios, ...modelScenarios, ...repeatedWritesScenarios];
