/**
 * The blocks of README.md and docs/ tagged `runnable` run, each file's in order, in a scratch copy of
 * this repository (as a reader has it after `npm ci`) against a fake of its own: BASE_URL and API_KEY
 * point at it. Each must end with the exit code its `exit=` says (0 by default).
 *
 * The fake has one rule broken (PLAN-NAME-MIN-LENGTH), so the README's walk through a failure (read
 * summary.md, re-run, replay) has a failure to show. `only=A,B` on a block adds `--only A B
 * --report-dir reports` to each `npm run conformance` in it: a full run stands in as a short one.
 * `journal=NAME` gives the block what an earlier night left in the CI cache, the journal of reuse
 * namespace NAME (empty): the block runs as every night but the first does. The first night, which
 * learns the namespace's IDs from a whole run of its own, is nightly.full.test.ts's (24 CPU-s here).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeServer, type FakeServer } from '../fake-server/index.ts';
import { Journal } from '../suites/framework/journal.ts';
import { reuseJournal } from '../suites/meta/nightly-runs.ts';
import { blocksOf, DOCS, type FencedBlock, ROOT } from './docs.ts';
import { childEnvironment } from '../suites/meta/child-env.ts';

const run = promisify(execFile);
const MINUTE = 60_000;
/** The fault of the docs' fake: the README shows how a failure reads, re-runs and replays. */
const DOCS_FAULT = 'PLAN-NAME-MIN-LENGTH';

/** A copy of the repository as a reader has it after `npm ci`: its files (tracked, or new and not ignored), and this repository's node_modules. */
async function scratchClone(): Promise<string> {
  const clone = mkdtempSync(join(tmpdir(), 'docs-clone-'));
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  // node_modules comes as a link below; a clone whose node_modules is itself a link lists it as a file.
  for (const path of stdout.split('\0').filter((path) => path !== '' && path !== 'node_modules')) {
    mkdirSync(dirname(join(clone, path)), { recursive: true });
    try {
      copyFileSync(join(ROOT, path), join(clone, path));
    } catch (error) {
      // A file deleted in the working tree but not yet in the index.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(clone, 'node_modules'), 'dir');
  return clone;
}

/** The shell lines that make each `npm run conformance` of a block a short run of `selection`. */
const shortRuns = (selection: string) =>
  [
    'npm() {',
    '  if [ "$1" = run ] && [ "$2" = conformance ]; then',
    '    shift 2; if [ "${1:-}" = -- ]; then shift; fi',
    `    command npm run conformance -- --report-dir reports --only ${selection.split(',').join(' ')} "$@"`,
    '  else command npm "$@"; fi',
    '}',
    '',
  ].join('\n');

const runnableFiles = DOCS.filter((file) => blocksOf(file).some((block) => block.flags.has('runnable')));

describe.each(runnableFiles)('the runnable blocks of %s, in order, in a scratch clone against a fake', (file) => {
  let clone: string;
  let fake: FakeServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    clone = await scratchClone();
    fake = await createFakeServer({ port: 0, faults: [DOCS_FAULT] });
    // What a reader's shell has: none of this run's settings for the suite, the target the block is about.
    env = { ...childEnvironment(), BASE_URL: fake.url, API_KEY: fake.apiKey, CI: 'true', NO_COLOR: '1' };
  }, MINUTE);

  afterAll(async () => {
    await fake?.close();
    if (clone) rmSync(clone, { recursive: true, force: true });
  });

  it.each(blocksOf(file).filter((block) => block.flags.has('runnable')).map((block) => [block.line, block] as const))(`${file}:%i`, async (_line, block: FencedBlock) => {
    const script = (block.options['only'] === undefined ? '' : shortRuns(block.options['only'])) + block.code;
    const night = block.options['journal'];
    if (night !== undefined) new Journal(reuseJournal(join(clone, 'reports', 'state'), night), { reuse: night });
    const ended = await run('bash', ['-e', '-c', script], { cwd: clone, env, maxBuffer: 64 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
    );
    expect(ended.code, `${file}:${block.line} exited ${ended.code}:\n${block.code}\n${ended.output.slice(-4000)}`).toBe(Number(block.options['exit'] ?? 0));
  }, 4 * MINUTE);
});
