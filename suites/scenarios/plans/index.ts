/**
 * Conformance scenarios of plans: `plans.create`, `plans.get` (documented), `plans.list` and
 * `plans.update` (setup), plan versions, and what a plan's configuration does once attached.
 * Every assertion names its rule; calls that only build or observe state are setup (they block,
 * never fail): `plans.get` is the subject only of PLAN-CREATE-THEN-GET and the version rules,
 * elsewhere it is a read whose answer a rule's check inspects.
 *
 * The reference creates a new version on a configuration change only when customers are on the
 * plan's current version, so every versioning scenario attaches a customer to the current version
 * before `plans.update`; then the rule holds on both the document's reading and the reference's.
 */
import { createScenarios } from './create.ts';
import { versionsScenarios } from './versions.ts';
import { versionChangesScenarios } from './version-changes.ts';
import { licenseLinksScenarios } from './license-links.ts';
import { groupsScenarios } from './groups.ts';
import { pricesScenarios } from './prices.ts';
import { resetsScenarios } from './resets.ts';
import { resetHoldersScenarios } from './resets-holders.ts';
import { resetsCalendarScenarios } from './resets-calendar.ts';
import { trialsScenarios } from './trials.ts';
import { planDeleteScenarios, planVersionDeleteScenarios } from './delete.ts';

export const plansScenarios = [...createScenarios, ...versionsScenarios, ...versionChangesScenarios, ...licenseLinksScenarios, ...groupsScenarios, ...pricesScenarios, ...resetsScenarios, ...resetHoldersScenarios, ...resetsCalendarScenarios, ...trialsScenarios, ...planDeleteScenarios, ...planVersionDeleteScenarios];
