/**
 * Conformance scenarios of referral programs: `referral_programs.update` (partial; null removes a
 * field; bounds, enums and the checkout rule), and the setup calls `rewards.create`,
 * `referral_programs.create` and `referral_programs.get`. MUST verdicts rest on the update's answer
 * (documented); what get reads after each update, refused or not, is REF-GET's. Rewards and
 * programs cannot be deleted through the interface, so their ids are namespaced.
 */
import { programsScenarios } from './programs.ts';
import { updateScenarios } from './update.ts';
import { referralDeleteScenarios } from './delete.ts';

export const referralsScenarios = [...programsScenarios, ...updateScenarios, ...referralDeleteScenarios];
