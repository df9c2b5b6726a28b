/**
 * The exploration of every conformance run (`npm run conformance`, against the embedded fake or any
 * deployment, and `npm test`): random programs in lockstep with the reference model, reported like a
 * scenario (its findings FAIL their rules in the run's report). It runs beside the scenarios, in no
 * slot of their concurrency, from when they start until they are all done, in the time they leave
 * (pace.ts: it waits while the process is busy with them), then ends the program it is in and
 * shrinks what it found for a few seconds more; where the target
 * has the control plane every program has a tenant of its own, elsewhere programs work under the
 * run's namespace, make nothing tenant-wide, and are cleaned up with it.
 *
 * `CONFORMANCE_EXPLORE_RUNS` caps the programs (default 1000; 0 leaves the exploration out).
 * Beside the scenarios it waits while they are busy and runs few programs; alone it runs at full
 * speed. By default it goes on alone until it has gone on 90 s since the scenarios started, and at
 * least 10 s: a quick target gets the programs a slow one spends on the scenarios (a vendor's run
 * against a fake on loopback explored 51 programs in 10 s alone, and 300 programs found 9 of the
 * 17 planted bugs that run missed or misnamed), and at a 50 ms round trip, where the scenarios take about
 * 90 s, the run is as long as before. `CONFORMANCE_EXPLORE_SECONDS` (`--explore-seconds`) sets the
 * time alone exactly instead. `besi-conformance explore` runs longer explorations on their own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TargetFault } from '../framework/checks.ts';
import { registerBeside, type ScenarioMeta } from '../framework/scenario.ts';
import { cliInvocation, targetedCommand } from '../report/commands.ts';
import { conformanceTarget } from '../support.ts';
import { explore, type ExploreResult } from './explorer.ts';
import { explorationMeta, explorationRecord, summaryLines, writeFindings, type FindingPaths } from './findings.ts';
import { aloneAfter, explorationBudget, leftoverPacer } from './pace.ts';
import { httpTarget } from './targets.ts';

/** After the scenarios are done (and the least time has passed), what is found is shrunk for this long at most. */
const SHRINK_GRACE_MS = 5_000;

const target = await conformanceTarget();
const budget = explorationBudget(process.env);
const explored = httpTarget(target, { ns: target.ns, beside: true });
// Where it was found: the finding's file, its script and its replay command point there.
const found = { ...(target.info.kind === 'deployment' ? { baseUrl: target.info.baseUrl } : {}), apiVersion: target.info.apiVersion, profile: target.info.profile };

interface Explored {
  readonly result: ExploreResult | undefined;
  readonly paths: readonly FindingPaths[];
}

registerBeside<Explored>(
  `exploration: random programs against the reference model, beside the scenarios (at most ${budget.runs})`,
  target,
  async (scenariosDone, signal) => {
    if (budget.runs === 0) return { result: undefined, paths: [] };
    const startedAt = performance.now();
    const stop = new AbortController();
    const stopShrinking = new AbortController();
    const alone = { leastMs: budget.seconds * 1000, ...(budget.fillSeconds === undefined ? {} : { fillMs: budget.fillSeconds * 1000 }) };
    void aloneAfter(Promise.resolve(scenariosDone), alone, startedAt).then(() => {
      stop.abort();
      setTimeout(() => stopShrinking.abort(), SHRINK_GRACE_MS).unref();
    });
    signal.addEventListener('abort', () => (stop.abort(), stopShrinking.abort()), { once: true });
    const result = await explore(explored, {
      seed: target.info.seed,
      runs: budget.runs,
      maxSteps: 20,
      // Within the run's deadline whatever happens, with room left to report.
      timeBudgetMs: Math.max(0, target.config.runTimeoutMs - 30_000),
      stop: stop.signal,
      stopShrinking: stopShrinking.signal,
      pace: leftoverPacer(scenariosDone),
      shrinkRuns: 30,
      maxFindings: 5,
      localiseBudgetMs: 15_000,
      // What the scenarios leave goes mostly to exploring: a finding is shrunk for 20 s at most.
      shrinkBudgetMs: 20_000,
    });
    const paths = writeFindings(target.config.reportDir, result, explored.apiVersion, explored.secrets(), found);
    mkdirSync(join(target.config.reportDir, 'explore'), { recursive: true });
    writeFileSync(join(target.config.reportDir, 'explore', 'explore.json'), explorationRecord(result));
    return { result, paths };
  },
  ({ result, paths }, ctx) => {
    if (result === undefined) return ctx.skip('CONFORMANCE_EXPLORE_RUNS=0: the run leaves the exploration out');
    // Typed here, not through scenario.ts's TaskMeta augmentation: built for dist/ on the framework's declarations, this file does not see it.
    const replayCommand = targetedCommand(found, `${cliInvocation()} explore`);
    (ctx.task.meta as { conformance?: ScenarioMeta }).conformance = explorationMeta(result, target.info, paths, replayCommand);
    for (const line of summaryLines(result, paths, replayCommand)) console.log(line);
    if (result.error !== undefined) throw new TargetFault(result.error);
    if (result.findings.length > 0) throw new Error(result.findings.map((f) => `${f.rule} FAIL: ${f.differences[0]?.path || f.differences[0]?.key}`).join('\n'));
  },
  { timeoutMs: 120_000 },
);
