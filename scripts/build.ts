/**
 * `npm run build` (and so `npm pack`, through `prepack`): the package in dist/, every source file
 * compiled once per module format.
 *
 * - ES modules, dist/: `tsc -b` builds the runtime code with declarations (tsconfig.build.json),
 *   then the scenarios, the ./suite entry and the conformance CLI on top of those declarations
 *   (tsconfig.build-suite.json). vitest runs the compiled scenario files as they are.
 * - CommonJS, dist/cjs/: tsc again, for the four entry points an app team may `require()` (the fake,
 *   ./control, ./spec, ./report: they need nothing but zod, which ships CommonJS too), JS and
 *   declarations under a `{"type": "commonjs"}` package.json, so each `exports` condition gets code
 *   and types of its own format and `require()` works on Node 20 releases without require(esm).
 *   The suite entries run only inside vitest, which is ESM-only: their `require` condition throws
 *   a message that says so.
 * - The `besi-fake` bin, bundled by esbuild into a few files, because resolving and loading about a
 *   hundred modules (zod's among them) was most of the fake's cold start.
 *
 * Why tsc and not a library bundler (tsdown, tsup): their declaration builds need TypeScript's
 * classic compiler API, which TypeScript 7 (the project's compiler) no longer ships, and tsdown
 * 0.22 and later need Node 22. TypeScript 7 emits both formats and their declarations itself.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { bundleFakeCli } from './fake.mjs';

const root = new URL('../', import.meta.url);
const at = (path: string) => new URL(path, root).pathname;
const tsc = (...args: string[]) => execFileSync(at('node_modules/.bin/tsc'), args, { stdio: 'inherit', cwd: at('.') });

rmSync(at('dist'), { recursive: true, force: true });
// Emit only: `npm run typecheck` (in every npm test, beside the tests) checks these very files, and
// the same build with the checks emits the same files for 13 CPU-s instead of 5.
tsc('-b', 'tsconfig.build-suite.json', '--noCheck');
tsc('-p', 'tsconfig.build-cjs.json');
// tsc -b's bookkeeping: only for the build itself (a build always starts from an empty dist/).
rmSync(at('dist/.build'), { recursive: true, force: true });

// The declaration of suites/index.ts, by hand: the inferred types of the scenario lists are too large for tsc to write.
writeFileSync(
  at('dist/suites/index.d.ts'),
  `import type { Scenario } from './framework/index.js';
export { conformanceTarget, scenario } from './support.js';
export { loadConfig, registerScenarios, type ConformanceConfig, type Scenario } from './framework/index.js';
/** Every conformance scenario of the suite. */
export declare const SCENARIOS: readonly Scenario[];
`,
);

writeFileSync(at('dist/cjs/package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
// The suite entries' `require` condition: vitest loads test files and global setups as ES modules, so only import() reaches them.
for (const [entry, target, exports] of [
  ['suite', 'suites/index.js', '*'],
  ['suite-global-setup', 'suites/global-setup.js', '{ default }'],
] as const) {
  const name = entry === 'suite' ? 'besi-conformance/suite' : 'besi-conformance/suite/global-setup';
  writeFileSync(
    at(`dist/cjs/${entry}.js`),
    `throw new Error(${JSON.stringify(`${name} runs inside vitest, which loads test files and global setups as ES modules and cannot be require()d: import it from a vitest test file or configuration (import … from '${name}').`)});\n`,
  );
  writeFileSync(at(`dist/cjs/${entry}.d.ts`), `export ${exports} from '../${target}';\n`);
}

// Read at run time by URL from the compiled modules (suites/framework/config.ts, fixtures/bodies.ts).
mkdirSync(at('dist/suites/profiles'), { recursive: true });
cpSync(at('suites/profiles'), at('dist/suites/profiles'), { recursive: true });
cpSync(at('spec/openapi.json'), at('dist/spec/openapi.json'));

await bundleFakeCli(at('dist/bin'));
