import { createFakeApp } from '/work/main/fake-server/app.ts';
import { createNamespace } from '/work/main/suites/framework/namespace.ts';
import { explore } from '/work/main/suites/explore/explorer.ts';
import { inProcessTarget } from '/work/main/suites/explore/targets.ts';
const seed = 7;
const fake = inProcessTarget(createFakeApp(), createNamespace({ prefix: 'conf', seed }));
const t0 = performance.now();
const result = await explore(fake, { seed, runs: 200, maxSteps: 25, maxFindings: 1, shrinkRuns: 50 });
console.log('programs', result.programs, 'findings', result.findings.length, 'ms', Math.round(performance.now() - t0));
