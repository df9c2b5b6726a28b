/**
 * The short exploration every conformance run ends with (`npm run conformance`, and `npm test`
 * against the embedded fake): a few random programs in lockstep with the reference model, within a
 * time budget, reported like a scenario (its findings FAIL their rules in the run's report).
 * `CONFORMANCE_EXPLORE_RUNS` (default 20 against the embedded fake, 0 against a deployment; 0 leaves
 * it out) and `CONFORMANCE_EXPLORE_SECONDS` (default 4) set the budget; `besi-conformance explore`
 * runs longer ones. Against a deployment it is opt-in: its oracle is the reference model, which also
 * decides what interface.md leaves open (a paid attach's checkout, a re-attach's refusal code, a
 * plan the reference refuses), and a certification run must fail nothing the document allows.
 */
import { afterAll, it } from 'vitest';
import { TargetFault } from '../framework/checks.ts';
import { discoveringFile } from '../framework/discovery.ts';
import { summariseCleanup, type CleanupSummary, type ScenarioMeta } from '../framework/scenario.ts';
import { cliInvocation, targetedCommand } from '../report/commands.ts';
import { conformanceTarget } from '../support.ts';
import { explore } from './explorer.ts';
import { explorationMeta, summaryLines, writeFindings } from './findings.ts';
import { httpTarget } from './targets.ts';

export function explorationBudget(env: NodeJS.ProcessEnv, kind: 'fake' | 'deployment'): { runs: number; seconds: number } {
  const read = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, not ${JSON.stringify(raw)}`);
    return Number(raw);
  };
  return { runs: read('CONFORMANCE_EXPLORE_RUNS', kind === 'fake' ? 20 : 0), seconds: read('CONFORMANCE_EXPLORE_SECONDS', 4) };
}

// The run's discovery (suites/framework/discovery.ts) imports the test files after the first scenario
// file once more, to plan their scenarios together: this file has none, and must not build a second
// target nor register its test twice.
if (discoveringFile() === undefined) {
  const target = await conformanceTarget();
  const budget = explorationBudget(process.env, target.info.kind);

  it(`exploration: up to ${budget.runs} random programs against the reference model`, { timeout: 120_000 + budget.seconds * 1000 }, async (ctx) => {
    if (budget.runs === 0) {
      ctx.skip(
        target.info.kind === 'deployment' && !process.env['CONFORMANCE_EXPLORE_RUNS']
          ? 'against a deployment the exploration is opt-in (CONFORMANCE_EXPLORE_RUNS=20, or besi-conformance explore): its reference model also decides what interface.md leaves open'
          : 'CONFORMANCE_EXPLORE_RUNS=0: the run leaves the exploration out',
      );
    }
    const explored = httpTarget(target, { ns: target.ns });
    const result = await explore(explored, { seed: target.info.seed, runs: budget.runs, maxSteps: 20, timeBudgetMs: budget.seconds * 1000, shrinkRuns: 60, maxFindings: 5 });
    // Where it was found: the finding's file, its script and its replay command point there.
    const found = { ...(target.info.kind === 'deployment' ? { baseUrl: target.info.baseUrl } : {}), apiVersion: target.info.apiVersion, profile: target.info.profile };
    const paths = writeFindings(target.config.reportDir, result, explored.apiVersion, explored.secrets(), found);
    // Typed here, not through scenario.ts's TaskMeta augmentation: built for dist/ on the framework's declarations, this file does not see it.
    const replayCommand = targetedCommand(found, `${cliInvocation()} explore`);
    (ctx.task.meta as { conformance?: ScenarioMeta }).conformance = explorationMeta(result, target.info, paths, replayCommand);
    for (const line of summaryLines(result, paths, replayCommand)) console.log(line);
    if (result.error !== undefined) throw new TargetFault(result.error);
    if (result.findings.length > 0) throw new Error(result.findings.map((f) => `${f.rule} FAIL: ${f.differences[0]?.path || f.differences[0]?.key}`).join('\n'));
  });

  // vitest 4 requires the hook's first parameter (its fixtures) to be a destructuring pattern.
  afterAll(async ({}, suite) => {
    (suite.file.meta as { conformanceCleanup?: CleanupSummary }).conformanceCleanup = summariseCleanup(await target.close());
  });
}
