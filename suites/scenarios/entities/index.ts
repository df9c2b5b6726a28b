/**
 * Conformance scenarios of entities: `entities.list` (listing across the organisation, pages,
 * filters, hydration) and the setup calls `entities.create`, `entities.get`, `entities.delete`.
 *
 * The organisation is shared: other data exists, and other scenarios add entities while these run.
 * So every listing is bounded to this scenario's own data (its customers, its namespaced ids in
 * `search`, or its plans), and a walk of the whole organisation only looks for its own entities
 * among everything, never at a total.
 */
import { createGetScenarios } from './create-get.ts';
import { deleteScenarios } from './delete.ts';
import { hydrationScenarios } from './hydration.ts';
import { listScenarios } from './list.ts';
import { listFiltersScenarios } from './list-filters.ts';

export const entitiesScenarios = [...createGetScenarios, ...deleteScenarios, ...hydrationScenarios, ...listScenarios, ...listFiltersScenarios];
