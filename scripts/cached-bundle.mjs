/**
 * A command of this repository run from an esbuild bundle of its TypeScript sources instead of
 * through tsx, whose loader compiles each of some hundreds of modules on every start (most of a
 * short command's CPU). The bundle is kept in node_modules/.cache/<name>/, used as it is while
 * every file it was built from is older than the build, and rebuilt first (a fraction of a second)
 * when one changed (a source, a new import).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Builds older than this are removed once two newer exist (a younger one may be starting in another process). */
const KEEP_MS = 10 * 60_000;

/**
 * The folder of a current build of `name`, built now if there is none: `bundle(outdir)` writes it
 * and resolves with the files (paths relative to the repository) it was built from.
 */
export async function cachedBundle(name, bundle) {
  // A folder per checkout: a scratch clone whose node_modules links to this one's builds from its own sources.
  const cache = `${ROOT}node_modules/.cache/${name}/${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}/`;
  const builtFrom = `${cache}built-from.json`;
  try {
    const { startedAt, inputs, dir } = JSON.parse(readFileSync(builtFrom, 'utf8'));
    if (inputs.every((input) => statSync(`${ROOT}${input}`).mtimeMs < startedAt)) return `${cache}${dir}/`;
  } catch {
    // No build yet, or one of its files is gone: build.
  }
  // Into a folder of its own, then built-from.json renamed into place: two commands starting at once never read a half-written build.
  const startedAt = Date.now();
  const dir = `${startedAt}-${process.pid}`;
  const inputs = await bundle(`${cache}${dir}/`);
  mkdirSync(cache, { recursive: true });
  writeFileSync(`${builtFrom}.${process.pid}`, JSON.stringify({ startedAt, inputs, dir }));
  renameSync(`${builtFrom}.${process.pid}`, builtFrom);
  const builds = readdirSync(cache, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => Number.parseInt(b) - Number.parseInt(a));
  for (const old of builds.slice(2)) if (startedAt - Number.parseInt(old) > KEEP_MS) rmSync(`${cache}${old}`, { recursive: true, force: true });
  return `${cache}${dir}/`;
}

/** esbuild's options for a command of this repository: ES modules for Node 20, the metafile's paths relative to the repository. */
export const NODE_BUNDLE = { bundle: true, format: 'esm', platform: 'node', target: 'node20', absWorkingDir: ROOT, metafile: true, logLevel: 'warning' };
