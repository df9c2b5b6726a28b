/**
 * The rules the reference-like target (target.ts) truly breaks, with the reason: its scenarios'
 * verdicts (verdicts.test.ts) and its exploration (suites/explore/oracle.test.ts) may FAIL these and
 * no other.
 */
import type { RuleId } from '../../../spec/rules/catalogue.ts';

/**
 * Where the 2.3.0 reference truly deviates from interface.md: these rules must FAIL against it (so
 * the target models each one and the suite detects it), and no other rule may FAIL.
 */
export const TRUE_DEVIATIONS: Partial<Record<RuleId, string>> = {
  'VER-2-4-0-ACCEPTED': 'the reference refuses x-api-version 2.4.0 with 400 invalid_api_version (exchange 147)',
  'PLAN-SHAPE': 'plans come without version_slug and active (DIFF-PLAN-VERSION-SLUG-MISSING, DIFF-PLAN-ACTIVE-MISSING)',
  'PLAN-LIST-SHAPE': 'as PLAN-SHAPE, in plans.list',
  'VER-PLAN-SLUG-DEFAULT': 'no version_slug',
  'VER-PLAN-ONE-ACTIVE': 'no active',
  'FEAT-SHAPE': 'features.create answers without display when none was sent (DIFF-FEATURE-DISPLAY-OMITTED)',
  'ENT-LIST-SHAPE': 'entities.list answers entities without invoices (DIFF-ENTITY-INVOICES-MISSING)',
  'CHECK-RESULT-SHAPE': 'a plain balances.check answers without the balances map (DIFF-CHECK-BALANCES-MAP-MISSING)',
  'CHECK-BALANCES-MAP': 'the same, under the rule about that map',
  'CHECK-BALANCES-LINKED-CREDIT-SYSTEM': 'the same: without the map, no related credit system is in it',
  'CHECK-ENTITY-ID-NULL': 'balances.check leaves entity_id out instead of null when no entity was named (exchange 087)',
  'ENT-DELETE': "after entities.delete the entity's plan stays active at customer level (exchanges 162-165)",
  'REF-UPDATE-NULL-REMOVES': 'referral_programs.update refuses null (DIFF-REFERRAL-UPDATE-NULL-REJECTED, exchanges 119, 120)',
  'PLAN-ITEMS-ROUND-TRIP': 'a purchase cap of 0 reads back as null, no cap (exchanges 174, 175)',
  'VER-HEADER-DEFAULT': 'served without x-api-version (exchange 145) but refused with 2.4.0 (exchange 147): the default is not 2.4.0',
  'ENT-STATUSES-FILTER': 'entities.list ignores statuses (exchanges 057, 181)',
  'ENT-STATUSES-ENUM': 'entities.list takes any value in its status filter (observed-behaviour §8.8): statuses is not read at all',
  'ENT-EMBEDDED-SUBSCRIPTION-FIELDS': 'a subscription embedded in an entity carries its `id` too (exchanges 078, 181), where the document lists the fields "only"',
  'LIC-RELEASE-REQUIRED-FIELDS': 'licenses.release without license_plan_id is served (observed-behaviour §8.9)',
  'PREV-UPDATE-FIELDS': 'a preview update without plan_id is served, the reference picking the plan (observed-behaviour §3.6)',
};
