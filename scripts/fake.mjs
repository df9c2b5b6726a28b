/**
 * `npm run fake`: the fake's CLI without tsx, whose start-up (compiling about a hundred modules on
 * every start) was most of the command's cold start. It runs the bundle the package's `besi-fake`
 * bin is built as (esbuild), kept in node_modules/.cache/besi-fake/: used as it is while every file
 * it was built from is older than the build, rebuilt first (a fraction of a second) when one
 * changed (a source, zod, a new import). scripts/build.ts builds the bin with the same function.
 */
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** The cached build's folder, if it was built after every file it was built from last changed. */
function currentBuild() {
  try {
    const { startedAt, inputs, dir } = JSON.parse(readFileSync(BUILT_FROM, 'utf8'));
    return inputs.every((input) => statSync(input).mtimeMs < startedAt) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Builds into a folder of its own and then points built-from.json at it (renamed into place), so two
 * `npm run fake` starting at once never read a half-written build; older builds but the last are removed.
 */
async function rebuild() {
  const startedAt = Date.now();
  const dir = `${CACHE}${startedAt}-${process.pid}/`;
  const inputs = await bundleFakeCli(dir);
  writeFileSync(`${BUILT_FROM}.${process.pid}`, JSON.stringify({ startedAt, inputs, dir }));
  renameSync(`${BUILT_FROM}.${process.pid}`, BUILT_FROM);
  const builds = readdirSync(CACHE, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort((a, b) => Number.parseInt(b) - Number.parseInt(a));
  for (const old of builds.slice(2)) rmSync(`${CACHE}${old}`, { recursive: true, force: true });
  return dir;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = currentBuild() ?? (await rebuild());
  // The CLI reads its options from process.argv.slice(2): this script's arguments.
  await import(pathToFileURL(`${dir}besi-fake.js`).href);
}
