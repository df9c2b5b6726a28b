/**
 * Conformance scenarios of the billing.attach setup endpoint. What the attach did is read through
 * documented operations (subscriptions.list, balances.check, entities.list), so that a fault of a
 * reference read (customers.get, entities.get) is never charged to billing.attach.
 */
import { attachScenarios } from './attach.ts';

export const billingScenarios = [...attachScenarios];
