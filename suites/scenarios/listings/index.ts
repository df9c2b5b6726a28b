/**
 * Conformance scenarios of `subscriptions.list` and `purchases.list`, and of the States rules about
 * the records they list.
 *
 * The organisation is shared with other scenarios running at the same time, so every listing is
 * bounded to this scenario's own data: its customers, or (across customers) its own namespaced plans
 * through `plan_id`. Record states the public API cannot produce (past due, scheduled, and expired
 * purchases) come from the fake's control plane (`records.force_state`), or, for one scenario, from a
 * pre-provisioned fixture of the target profile. An expired subscription needs neither: attaching a
 * main plan of the same group replaces (expires) the one held.
 */
import { recordsScenarios } from './records.ts';
import { statusesScenarios } from './statuses.ts';
import { pagesScenarios } from './pages.ts';
import { periodsScenarios } from './periods.ts';
import { modelScenarios } from './model.ts';
import { past200Scenarios } from './past-200.ts';

export const listingsScenarios = [...recordsScenarios, ...statusesScenarios, ...pagesScenarios, ...periodsScenarios, ...modelScenarios, ...past200Scenarios];
