/**
 * Conformance scenarios of features: `features.create` and the Feature resource, credit systems,
 * and the setup calls `features.get` and `features.list`. Features cannot be deleted through the
 * API, so every one carries a namespaced id and a shared deployment keeps them. Every assertion
 * names its rule; `features.get` is the subject of FEAT-GET only, elsewhere a read (setup).
 */
import { createScenarios } from './create.ts';
import { creditSystemsScenarios } from './credit-systems.ts';
import { featureDeleteScenarios } from './delete.ts';

export const featuresScenarios = [...createScenarios, ...creditSystemsScenarios, ...featureDeleteScenarios];
