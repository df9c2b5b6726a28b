/**
 * `npm run fake`: the fake's CLI without tsx, whose start-up (compiling about a hundred modules on
 * every start) was most of the command's cold start. It runs the bundle the package's `besi-fake`
 * bin is built as (esbuild), kept in node_modules/.cache/besi-fake/: used as it is while every file
 * it was built from is older than the build, rebuilt first (a fraction of a second) when one
 * changed. scripts/build.ts builds the bin with the same function.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Bundles fake-server/cli.ts into `outdir`/besi-fake.js (and its chunks); resolves with the files it was built from. */
export async function bundleFakeCli(outdir) {
  const { build } = await import('esbuild');
  const { metafile } = await build({
    entryPoints: { 'besi-fake': `${ROOT}fake-server/cli.ts` },
    outdir,
    bundle: true,
    // Chunks, so the fault and rule catalogues load only for --fault and --list-faults.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Less to parse at start; identifiers are kept, so a stack trace still names the fake's functions.
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    logLevel: 'warning',
  });
  return Object.keys(metafile.inputs).map((input) => `${ROOT}${input}`);
}

const CACHE = `${ROOT}node_modules/.cache/besi-fake/`;
const BUILT_FROM = `${CACHE}built-from.json`;

/** Whether the cached bundle was built after every file it was built from last changed. */
function current() {
  try {
    const { startedAt, inputs } = JSON.parse(readFileSync(BUILT_FROM, 'utf8'));
    return inputs.every((input) => statSync(input).mtimeMs < startedAt);
  } catch {
    return false;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!current()) {
    const startedAt = Date.now();
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(BUILT_FROM, JSON.stringify({ startedAt, inputs: await bundleFakeCli(CACHE) }));
  }
  // The CLI reads its options from process.argv.slice(2): this script's arguments.
  await import(pathToFileURL(`${CACHE}besi-fake.js`).href);
}
