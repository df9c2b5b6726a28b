/**
 * Conformance scenarios of features: `features.create` and the Feature resource, credit systems,
 * the setup calls `features.get` and `features.list`, and `features.delete` with what it leaves.
 * Every feature carries a namespaced id. Every assertion names its rule; `features.get` is the
 * subject of FEAT-GET only, elsewhere a read (setup).
 */
import { createScenarios } from './create.ts';
import { creditSystemsScenarios } from './credit-systems.ts';
import { featureDeleteLeftoverScenarios, featureDeleteScenarios } from './delete.ts';

export const featuresScenarios = [...createScenarios, ...creditSystemsScenarios, ...featureDeleteScenarios, ...featureDeleteLeftoverScenarios];
