/**
 * The interface as data, for tools outside this package: the operation table (paths, request and
 * response schemas), the error codes, the fake's control-plane calls and the rule catalogue.
 */
export { ERROR_CODES, ErrorBody, type ErrorCode } from './common.ts';
export { CONTROL_PREFIX, controlCalls, type ControlCallName } from './control-plane.ts';
export { OPERATION_NAMES, operationForPath, operations, type OperationName, type Operations } from './operations.ts';
export { RULES, ruleById, type RuleId } from './rules/catalogue.ts';
