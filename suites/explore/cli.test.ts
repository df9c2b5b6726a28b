/**
 * `besi-conformance explore` end to end, in process: against the embedded fake broken at one rule it
 * exits 1 and writes the run's four report files with the finding as a FAIL, the replay file and the
 * curl script; `--replay` of that file exits 1 where it was found (the same broken fake) and 0
 * against the healthy one; against the healthy fake a short exploration exits 0.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConformanceReport } from '../report/schema.ts';
import { exploreCommand, type ExploreCommandOptions } from './cli.ts';

const FAULT = 'CHECK-SEND-EVENT-RECORDS';
const dir = mkdtempSync(join(tmpdir(), 'explore-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const base: ExploreCommandOptions = { runs: 40, maxSteps: 25, shrinkRuns: 100, maxFindings: 1, seed: 7, reportDir: dir };

describe('explore (command)', () => {
  it('reports a finding against a broken fake as a FAIL of its rule, and exits 1', { timeout: 300_000 }, async () => {
    expect(await exploreCommand({ ...base, fault: [FAULT] })).toBe(1);
    const report = ConformanceReport.parse(JSON.parse(readFileSync(join(dir, 'explore/report.json'), 'utf8')));
    expect(report.rules[FAULT]?.status).toBe('FAIL');
    expect(report.rules[FAULT]?.scenarios[0]?.message).toMatch(/--replay/);
    for (const file of ['report.html', 'summary.md', 'junit.xml', 'finding-1.json', 'finding-1.sh', 'explore.json']) expect(existsSync(join(dir, 'explore', file)), file).toBe(true);
  });

  it('replays the finding where it was found, the fake broken the same way (exit 1), and, told otherwise, on the healthy one (exit 0)', { timeout: 120_000 }, async () => {
    const finding = join(dir, 'explore/finding-1.json');
    expect(JSON.parse(readFileSync(finding, 'utf8')).target).toEqual({ apiVersion: '2.4.0', profile: 'default', faults: [FAULT] });
    expect(await exploreCommand({ ...base, replay: finding })).toBe(1);
    expect(await exploreCommand({ ...base, replay: finding, fault: [] })).toBe(0);
  });

  it('finds nothing on the healthy fake (exit 0)', { timeout: 300_000 }, async () => {
    expect(await exploreCommand({ ...base, runs: 5, reportDir: join(dir, 'healthy') })).toBe(0);
  });
});
