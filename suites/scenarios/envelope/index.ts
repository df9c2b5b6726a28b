/**
 * What every operation shares (interface.md: Authentication, Versioning, Errors, and the conventions
 * of the whole document): the bearer key and tenants, the x-api-version header, success and error
 * answers, POST + JSON, snake_case, units and timestamps, callers that differ, and the variants requests may take.
 */
import { authenticationScenarios } from './authentication.ts';
import { versioningScenarios } from './versioning.ts';
import { errorsScenarios } from './errors.ts';
import { conventionsScenarios } from './conventions.ts';
import { generatedBodiesScenarios } from './generated-bodies.ts';
import { callersScenarios } from './callers.ts';
import { variantsScenarios } from './variants.ts';
import { idCaseScenarios } from './id-case.ts';

export const envelopeScenarios = [...authenticationScenarios, ...versioningScenarios, ...errorsScenarios, ...conventionsScenarios, ...generatedBodiesScenarios, ...callersScenarios, ...variantsScenarios, ...idCaseScenarios];
