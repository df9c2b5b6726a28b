/**
 * `npm run fake`: the fake's CLI without tsx, from the bundle the package's `besi-fake` bin is built
 * as (esbuild), kept in node_modules/.cache/besi-fake/ (scripts/cached-bundle.mjs). scripts/build.ts
 * builds the bin with the same function.
 */
import { pathToFileURL } from 'node:url';
import { cachedBundle, NODE_BUNDLE } from './cached-bundle.mjs';

/** Bundles fake-server/cli.ts into `outdir`/besi-fake.js (and its chunks); resolves with the files it was built from. */
export async function bundleFakeCli(outdir) {
  const { build } = await import('esbuild');
  const { metafile } = await build({
    ...NODE_BUNDLE,
    entryPoints: { 'besi-fake': 'fake-server/cli.ts' },
    outdir,
    // Chunks, so the fault and rule catalogues load only for --fault and --list-faults.
    splitting: true,
    // Less to parse at start; identifiers are kept, so a stack trace still names the fake's functions.
    minifyWhitespace: true,
    minifySyntax: true,
  });
  return Object.keys(metafile.inputs);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = await cachedBundle('besi-fake', bundleFakeCli);
  // The CLI reads its options from process.argv.slice(2): this script's arguments.
  await import(pathToFileURL(`${dir}besi-fake.js`).href);
}
