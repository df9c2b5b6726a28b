/**
 * The parity report against a deployment: here a second fake process, started from the command line
 * with one rule broken. The report must list exactly that difference class (its rule, its field) and
 * nothing else, counted, with an example and the shortest program that showed it, which replays;
 * the console says the classes by level, and the exit code is 1 only for a MUST-level class.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../spec/common.ts';
import { operations } from '../../spec/operations.ts';
import { loadConfig } from '../framework/config.ts';
import { createTarget } from '../framework/target.ts';
import { LEDGER, PROBES } from '../support.ts';
import { UNKNOWN_KEY } from './command.ts';
import { explore } from './explorer.ts';
import type { FindingFile } from './findings.ts';
import { parityExitCode, parityLines, parityReport, writeParity, type ParityReport } from './parity.ts';
import { replayFinding } from './replay.ts';
import { httpTarget } from './targets.ts';

const FAULT = 'CHECK-RESULT-ECHOES';
const root = fileURLToPath(new URL('../../', import.meta.url));
let child: ChildProcess;
let ready: { url: string; keys: { key: string }[] };

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', 'fake-server/cli.ts', '--port', '0', '--ready-json', '--fault', FAULT], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  ready = JSON.parse(line) as typeof ready;
}, 60_000);

afterAll(async () => {
  child.kill('SIGTERM');
  await once(child, 'exit');
});

describe('explore --parity against a fake process with one fault', () => {
  it(`lists exactly the class of ${FAULT}`, { timeout: 300_000 }, async () => {
    const target = await createTarget({
      operations,
      errorBody: ErrorBody,
      // As a deployment: the key comes from the configuration, as API_KEY would.
      config: loadConfig({ env: { BASE_URL: ready.url, API_KEY: ready.keys[0]!.key } }),
      run: { baseUrl: ready.url, apiKey: ready.keys[0]!.key, seed: 4242, salt: 'parity', kind: 'deployment' },
      retry: false,
      ...LEDGER,
      probes: PROBES,
    });
    try {
      const explored = httpTarget(target, { ns: target.ns });
      const result = await explore(explored, { seed: 4242, runs: 20, maxSteps: 25, parity: true });
      const parity = parityReport(result, ready.url, explored.secrets());
      const { report } = parity;
      expect(result.error).toBeUndefined();
      expect(report.classes.map((c) => `${c.rule} ${c.field}`)).toEqual([`${FAULT} BalancesCheckResult.required_balance`]);
      expect(report.classes[0]!.count).toBeGreaterThan(0);
      const dir = mkdtempSync(join(tmpdir(), 'parity-'));
      try {
        const paths = writeParity(dir, parity, { replayCommand: 'API_KEY=… besi-conformance explore --base-url X', apiVersion: '2.4.0', secrets: explored.secrets(), target: { baseUrl: ready.url, apiVersion: '2.4.0', profile: 'default' } });
        const markdown = readFileSync(paths.markdown, 'utf8');
        expect(markdown).toMatch(new RegExp(`\\| ${FAULT} \\| SHOULD \\| BalancesCheckResult.required_balance \\|`));
        expect(markdown).toMatch(/The shortest program that showed it, \d+ call\(s\)/);
        expect(markdown).toMatch(/Replay: `API_KEY=… besi-conformance explore --base-url X --replay .*class-1\.json`/);
        // No key the target issued, and nothing like one but the well-formed key no target issues (command.ts UNKNOWN_KEY), which a replay sends as it is.
        const written = `${markdown}${readFileSync(join(dir, 'parity.json'), 'utf8')}${readFileSync(join(dir, 'class-1.sh'), 'utf8')}`;
        for (const { key } of ready.keys) expect(written).not.toContain(key);
        expect(written.replaceAll(UNKNOWN_KEY, '')).not.toMatch(/am_sk_[a-z]+_[a-z0-9]/);
        // The class's program replays: it still differs there.
        const program = JSON.parse(readFileSync(join(dir, 'class-1.json'), 'utf8')) as FindingFile;
        expect(program.target?.baseUrl).toBe(ready.url);
        expect((await replayFinding(program, explored)).reproduced).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      expect(parityLines(report)[0]).toMatch(/^explore: parity: 1 difference class\(es\): 0 MUST, 1 SHOULD/);
      expect(parityExitCode(report)).toBe(0);
      const must: ParityReport = { ...report, classes: report.classes.map((c) => ({ ...c, level: 'MUST' })) };
      expect(parityExitCode(must)).toBe(1);
      expect(parityExitCode({ ...report, error: 'the target stopped answering' })).toBe(2);
    } finally {
      await target.close();
    }
  });
});
