/**
 * Conformance scenarios of `billing.preview_multi_update`: the result (entries per processor
 * subscription, totals, currency), refunds by mode, entity scoping, request validation, that a
 * preview changes nothing, and that a customer on an older plan version is charged that version's
 * prices. Paid plans need `paid-attach`; exact prorated amounts need the control plane's clock.
 */
import { resultScenarios } from './result.ts';
import { subscriptionsScenarios } from './subscriptions.ts';
import { requestsScenarios } from './requests.ts';
import { previewVersionsScenarios } from './versions.ts';

export const previewScenarios = [...resultScenarios, ...subscriptionsScenarios, ...requestsScenarios, ...previewVersionsScenarios];
