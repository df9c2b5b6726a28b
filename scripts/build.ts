/**
 * `npm run build`: the package in dist/. tsc compiles the runtime code (JS + declarations, `.ts`
 * specifiers rewritten to `.js`); the JSON the code reads next to itself is copied; and the
 * `besi-fake` bin is bundled by esbuild into a few files, because resolving and loading about a
 * hundred modules (zod's among them) was most of the fake's cold start.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const at = (path: string) => new URL(path, root).pathname;

rmSync(at('dist'), { recursive: true, force: true });
for (const project of ['tsconfig.build.json', 'tsconfig.build-suite.json']) execFileSync(at('node_modules/.bin/tsc'), ['-p', at(project)], { stdio: 'inherit' });

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

// Read at run time by URL from the compiled modules (suites/framework/config.ts, fixtures/bodies.ts).
mkdirSync(at('dist/suites/profiles'), { recursive: true });
cpSync(at('suites/profiles'), at('dist/suites/profiles'), { recursive: true });
cpSync(at('spec/openapi.json'), at('dist/spec/openapi.json'));

await build({
  entryPoints: { 'besi-fake': at('fake-server/cli.ts') },
  outdir: at('dist/bin'),
  bundle: true,
  // Chunks, so the fault and rule catalogues load only for --fault and --list-faults.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Less to parse at start; identifiers are kept, so a stack trace still names the fake's functions.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
