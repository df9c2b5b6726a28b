#!/usr/bin/env node
// The conformance CLI in a clone of this repository: `node suites/cli.mjs <command> …` (the
// package's bin runs the compiled dist/suites/cli.js instead). It loads vitest's node API before
// tsx registers its loader: under tsx's hooks those hundreds of plain JavaScript modules cost about
// 2.3 CPU-s, against 0.6 before them (Node 20 has no way past the hooks once they are in), so a
// one-scenario run costs about 5 CPU-s here against 7.5 under `npx tsx suites/cli.ts`.
// Commands other than `run` (argv[2]) need no vitest and load none here.
if (process.argv[2] === 'run') await import('vitest/node');
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('./cli.ts');
await main();
