/**
 * The published formats of a conformance run: `report.json` (the single source every other output
 * is rendered from) and the baseline of known failures. Both are Zod schemas, so a consumer (a CI
 * dashboard, another machine rendering the HTML) can validate what it reads, and the version in
 * `format` says which shape it holds.
 */
import { z } from 'zod';

export const REPORT_FORMAT = 'besi-conformance-report/2';
export const BASELINE_FORMAT = 'besi-conformance-baseline/1';

/** A rule's verdict. Across scenarios the highest wins: FAIL > ERROR > PASS > BLOCKED > SKIP. */
export const RuleStatus = z.enum(['PASS', 'FAIL', 'BLOCKED', 'SKIP', 'ERROR']);
export type RuleStatus = z.infer<typeof RuleStatus>;
export const RULE_STATUSES = RuleStatus.options;

/** A scenario's outcome; `blocked`: a setup step stopped it before any rule failed. */
export const ScenarioStatus = z.enum(['pass', 'fail', 'error', 'skip', 'blocked']);
export type ScenarioStatus = z.infer<typeof ScenarioStatus>;

const Headers = z.record(z.string(), z.string());
const Issue = z.object({ path: z.string(), message: z.string() });

/**
 * One HTTP exchange, secrets redacted, bodies cut; `curl` replays its request (the key as `$API_KEY`).
 * Loose: fields the evidence log adds later survive a read and a merge.
 */
export const ReportedExchange = z.looseObject({
  seq: z.number(),
  label: z.string(),
  startedAt: z.string(),
  durationMs: z.number(),
  attempts: z.number(),
  retries: z.array(z.object({ status: z.number().optional(), error: z.string().optional(), waitedMs: z.number() })),
  request: z.object({ method: z.string(), url: z.string(), headers: Headers, body: z.unknown() }),
  response: z.object({ status: z.number(), headers: Headers, body: z.unknown() }).optional(),
  error: z.string().optional(),
  shapeRule: z.string().optional(),
  schemaIssues: z.array(Issue).optional(),
  errorBodyIssues: z.array(Issue).optional(),
  spellings: z.record(z.string(), z.enum(['wire', 'documented', 'mixed'])).optional(),
  mixedSpellings: z.array(z.string()).optional(),
  curl: z.string(),
});
export type ReportedExchange = z.infer<typeof ReportedExchange>;

/** One scenario as it bears on one rule: the rule's verdict there and, when it did not pass, why. */
export const RuleScenario = z.object({
  scenario: z.string(),
  title: z.string(),
  /** The test's full name, as in JUnit. */
  test: z.string(),
  file: z.string(),
  /**
   * `declared`: the scenario names the rule. `wire-schema`: the rule is the shape rule of a 200 it
   * checked. `server-fault`: a 5xx (or a request timed out) outside any check was charged to this
   * success rule (ERR-SUCCESS-200, ERR-SUCCESS-200-SETUP).
   */
  via: z.enum(['declared', 'wire-schema', 'server-fault']),
  /** This rule's verdict in this scenario. */
  status: RuleStatus,
  /** The whole scenario's outcome. */
  scenarioStatus: ScenarioStatus,
  /** SKIP: why the scenario did not run. BLOCKED: which step failed first. */
  reason: z.string().optional(),
  blockedBy: z.string().optional(),
  /** FAIL or ERROR: the failed assertion (or error), what it expected and what came back. */
  message: z.string().optional(),
  expected: z.unknown().optional(),
  actual: z.unknown().optional(),
  /** FAIL or ERROR: the exchanges behind the message, each with its curl. */
  exchanges: z.array(ReportedExchange).optional(),
  /** PASS: what of the rule this scenario went on without asking, and why (it verified the rule only in part). */
  unverified: z.array(z.string()).optional(),
  /** How long the scenario ran (ms); JUnit's time of the rules it carries. */
  durationMs: z.number().optional(),
  /**
   * FAIL or ERROR, for the first few failing scenarios of a rule: a POSIX shell script replaying the
   * scenario's calls from its first one up to the one behind the verdict, the key as `$API_KEY`, the
   * target as `$BASE_URL` and the run's part of every ID as `$RUN` (suites/report/replay.ts).
   */
  replay: z.string().optional(),
});
export type RuleScenario = z.infer<typeof RuleScenario>;

export const BaselineEntry = z.strictObject({
  rule: z.string().min(1),
  reason: z.string().min(1),
  /** `YYYY-MM-DD`; from that day on the entry counts as not listed. */
  expires: z.iso.date().optional(),
});
export type BaselineEntry = z.infer<typeof BaselineEntry>;

export const RuleReport = z.object({
  status: RuleStatus,
  /** Listed in the run's baseline as a known failure: it does not fail the run. */
  known: BaselineEntry.omit({ rule: true }).optional(),
  level: z.enum(['MUST', 'SHOULD']).optional(),
  /** The part of interface.md (licenses, billing, …); rules outside the catalogue have none. */
  area: z.string().optional(),
  section: z.string().optional(),
  provenance: z.enum(['documented', 'reference']).optional(),
  /** The sentence of interface.md (documented) or the observed behaviour (reference). */
  quote: z.string().optional(),
  /** Reference rules: where the behaviour was observed. */
  source: z.string().optional(),
  /** SKIP or BLOCKED: why, from every scenario carrying the rule. */
  reason: z.string().optional(),
  /**
   * PASS, but not every scenario carrying it asked all of it (one was BLOCKED, or went on without a
   * case): how many verified it in full, of how many that apply (SKIP ones left out), and what each
   * other one did not ask and why. A MUST rule no scenario verified in full makes the run UNDECIDED.
   */
  partly: z.object({ verified: z.number(), of: z.number(), gaps: z.array(z.string()) }).optional(),
  scenarios: z.array(RuleScenario),
});
export type RuleReport = z.infer<typeof RuleReport>;

export const TargetInfo = z.object({
  baseUrl: z.string(),
  kind: z.enum(['fake', 'deployment']),
  apiVersion: z.string(),
  seed: z.number(),
  profile: z.string(),
  readOnly: z.boolean(),
});

const Counts = z.object(Object.fromEntries(RULE_STATUSES.map((s) => [s, z.number()])) as Record<RuleStatus, z.ZodNumber>);

export const ConformanceReport = z.object({
  format: z.literal(REPORT_FORMAT),
  /** False while the run is going on, and in a report left by a run that was killed or interrupted. */
  complete: z.boolean(),
  run: z.object({
    targets: z.array(TargetInfo),
    seed: z.number().optional(),
    /** The version of this suite (package.json). */
    suiteVersion: z.string(),
    startedAt: z.string(),
    finishedAt: z.string(),
    durationMs: z.number(),
    /** vitest's verdict on the run, `running` while it goes on, `interrupted` after SIGINT/SIGTERM. */
    result: z.enum(['passed', 'failed', 'interrupted', 'running']),
    /** The selection (`--only`), when the run did not run everything. */
    only: z.array(z.string()).optional(),
    /** `--rerun-failed`: the report whose failures this run re-ran. */
    rerunOf: z.string().optional(),
    baseline: z.string().optional(),
    /** The run stopped before any scenario (preflight refused the target, key or API version): why. */
    stopped: z.object({ stage: z.literal('preflight'), kind: z.string(), message: z.string() }).optional(),
    /** `should`: SHOULD failures fail the run too (`--fail-on should`); absent: `must`. */
    failOn: z.enum(['must', 'should']).optional(),
    /**
     * The run did not end on its own: a signal (SIGTERM, SIGINT), its deadline (CONFORMANCE_RUN_TIMEOUT_MS)
     * or an error of the harness stopped it; how many of its scenarios had run by then.
     */
    interrupted: z
      .object({ cause: z.enum(['SIGTERM', 'SIGINT', 'deadline', 'error']), message: z.string(), scenariosRun: z.number(), scenariosPlanned: z.number().optional() })
      .optional(),
  }),
  counts: z.object({
    rules: Counts,
    /** FAIL or ERROR rules the baseline lists. */
    known: z.number(),
    scenarios: z.object({ pass: z.number(), fail: z.number(), error: z.number(), skip: z.number(), blocked: z.number() }),
    /** MUST rules that FAIL and are not known. */
    mustFailures: z.number(),
  }),
  rules: z.record(z.string(), RuleReport),
  /** Baseline entries that no longer hold: the rule now passes (the run fails until they are removed), or they expired. */
  baseline: z.object({ stale: z.array(BaselineEntry), expired: z.array(BaselineEntry) }).optional(),
  /** Testable catalogue rules no scenario of the run carried (only for a run of every scenario). */
  uncovered: z.array(z.string()).optional(),
  /** Failures outside any scenario: files that failed to load, hooks, unhandled errors. */
  errors: z.array(z.object({ file: z.string().optional(), message: z.string() })),
  cleanup: z.array(
    z.object({
      file: z.string(),
      undone: z.number(),
      alreadyGone: z.number(),
      left: z.array(z.object({ kind: z.string(), id: z.string() })),
      failed: z.array(z.object({ kind: z.string(), id: z.string(), error: z.string() })),
    }),
  ),
  /**
   * What the run left on its target by URL, from its journal (suites/framework/journal.ts) after the
   * run's last sweep: each record once, of every kind, whatever stopped the run. Present, it is the
   * authority on what stays (the files' `left` and `failed` were tried again by the sweep).
   */
  leftovers: z
    .object({
      /** The journal the records come from (`besi-conformance cleanup --journal <it>` removes them later). */
      journal: z.string(),
      /** True: the sweep checked each record against the target. False: the journal's word alone (the run was stopped first). */
      checked: z.boolean(),
      /** Removed (or found gone) by the sweep, besides each file's own cleanup. */
      undone: z.number(),
      alreadyGone: z.number(),
      /** Records that stay: without `error` the API offers no removal (a plan archived), with it the removal failed, or was not tried. */
      records: z.array(z.object({ kind: z.string(), id: z.string(), error: z.string().optional() })),
    })
    .optional(),
});
export type ConformanceReport = z.infer<typeof ConformanceReport>;

export const Baseline = z.strictObject({
  $schema: z.string().optional(),
  format: z.literal(BASELINE_FORMAT),
  entries: z.array(BaselineEntry),
});
export type Baseline = z.infer<typeof Baseline>;
