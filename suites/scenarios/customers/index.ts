/**
 * Conformance scenarios of the customer setup endpoints (customers.get_or_create, customers.get).
 * Here those calls are the subject, so they are made with attributed checks; features, plans and
 * attachments are setup (they block, never fail).
 */
import { getOrCreateScenarios } from './get-or-create.ts';
import { getScenarios } from './get.ts';
import { customerDeleteLeftoverScenarios, customerDeleteScenarios } from './delete.ts';

export const customersScenarios = [...getOrCreateScenarios, ...getScenarios, ...customerDeleteScenarios, ...customerDeleteLeftoverScenarios];
