/**
 * The conformance framework's public surface, for test files and scenario modules.
 *
 * Two modules are meant for vitest's main process and are imported directly, not through here:
 * `suites/framework/reporter.ts` (in the conformance CLI, suites/cli.ts) and `suites/framework/run.ts` (in the
 * global setup). This index loads vitest's runtime, which only a test worker has.
 */
export {
  aggregateRuleStatus,
  isRouteNotServed,
  NeedsFailedCheck,
  PreconditionOverreach,
  RouteNotServed,
  RuleChecks,
  SetupFailed,
  SetupNotServed,
  TargetFault,
  type PreconditionOverreachFinding,
  type RecordedVerdict,
  type RuleFacts,
  type RuleResult,
  type RuleStatus,
} from './checks.ts';
export { inBatches } from './batches.ts';
export { inOwnWords, printable } from './own-words.ts';
export { capabilitySet, PROBE_TIMEOUT_MS, resolveCapabilities, type Capability, type CapabilitySet, type Need } from './capabilities.ts';
export {
  Client,
  createClient,
  normaliseSpellings,
  ReadOnlyViolation,
  type CallFailure,
  type CallResult,
  type CallSuccess,
  type ClientOptions,
  type ClientScope,
  type OperationTable,
  type RawRequest,
  type RawResult,
  type RequestOptions,
} from './client.ts';
export {
  checkLiveKey,
  ConfigError,
  DEFAULT_API_VERSION,
  ENV_VARS,
  FailOn,
  Fixtures,
  loadConfig,
  isLiveKey,
  loadProfile,
  Profile,
  RecordFixture,
  secretsOf,
  type ConformanceConfig,
  type FixtureName,
  type LiveKeyCheck,
  type LoadConfigOptions,
  type ResolvedProfile,
} from './config.ts';
export { ControlClient, ControlPlaneError, createControlClient, type ControlRequest, type ControlResponse, type ProbeResult } from './control-client.ts';
export {
  createRedactor,
  EvidenceLog,
  MIN_SECRET_RUN,
  REDACTED,
  redactSecrets,
  type AnswerFault,
  type Exchange,
  type ExchangeFault,
  type Issue,
  type Redactor,
  type Spelling,
} from './evidence.ts';
export { answerFault, Transport, TransportError, type HeaderOverrides, type TransportFailure } from './http.ts';
export { Ledger, type CleanupAction, type CleanupReport, type KindCleanup, type LedgerEntry, type LedgerOptions, type RecordedEntry, type ScenarioLedger } from './ledger.ts';
export { type CleanupPlan, type Creates } from './cleanup.ts';
export { prepareRun, type PrepareOptions, type ProbeContext } from './prepare.ts';
export { createNamespace, type Namespace } from './namespace.ts';
export { defaultRetryPolicy, type RetryPolicy } from './retry.ts';
export type { RunInfo, StartedFake } from './run.ts';
export {
  catalogueFacts,
  defineScenario,
  registerScenarios,
  runScenario,
  runScenarios,
  ScenarioTimeoutError,
  testName,
  type ExpectedError,
  type RegisterOptions,
  type RunOptions,
  type Scenario,
  type ScenarioContext,
  type ScenarioDef,
  type ScenarioMeta,
  type ScenarioOutcome,
  type ScenarioStatus,
} from './scenario.ts';
export { createTarget, type CreateTargetOptions, type Target, type TargetInfo } from './target.ts';
