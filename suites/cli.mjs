#!/usr/bin/env node
// The conformance CLI in a clone of this repository: `node suites/cli.mjs <command> …` (the
// package's bin runs the compiled dist/suites/cli.js instead). It runs an esbuild bundle of
// suites/cli.ts kept in node_modules/.cache/besi-conformance/ (scripts/cached-bundle.mjs), not the
// sources under tsx: tsx's loader compiled some 260 modules on every start and slowed the loading
// of vitest's, about 3 CPU-s of a one-scenario run's 5.5. The scenarios themselves run in vitest,
// from their sources, as before.
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { cachedBundle, NODE_BUNDLE } from '../scripts/cached-bundle.mjs';

/** Each source keeps its own import.meta.url: the CLI finds the project, its profiles and fixtures from it. */
const ownUrls = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path }) => ({ contents: (await readFile(path, 'utf8')).replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)), loader: 'ts' }));
  },
};

async function bundleCli(outdir) {
  const { build } = await import('esbuild');
  // Chunks, so the scenarios, `explore` and `cleanup` load only for the commands that use them; packages from node_modules.
  const { metafile } = await build({ ...NODE_BUNDLE, entryPoints: { cli: 'suites/cli.ts' }, outdir, splitting: true, packages: 'external', plugins: [ownUrls] });
  return Object.keys(metafile.inputs);
}

const dir = await cachedBundle('besi-conformance', bundleCli);
const { main } = await import(pathToFileURL(`${dir}cli.js`).href);
await main();
