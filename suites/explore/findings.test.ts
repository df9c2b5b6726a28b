/**
 * A finding reads as a vendor needs it and replays: against a fake that breaks one rule, exploration
 * finds a minimal program, reports it as a FAIL of that rule with both answers and the program, and
 * its replay file (and its curl script) reproduces it there and not on the healthy fake.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFakeApp } from '../../fake-server/app.ts';
import { faultsFor } from '../../fake-server/faults/index.ts';
import { createFakeServer } from '../../fake-server/index.ts';
import { createNamespace } from '../framework/namespace.ts';
import { modelDiffersFromItself } from './attribution.ts';
import { explore, type ExploreResult } from './explorer.ts';
import { explorationMeta, writeFindings, type FindingFile } from './findings.ts';
import { replayFinding } from './replay.ts';
import { inProcessTarget } from './targets.ts';

const FAULT = 'CHECK-SEND-EVENT-RECORDS';
const dir = mkdtempSync(join(tmpdir(), 'explore-findings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const broken = () => inProcessTarget(createFakeApp({ faults: faultsFor([FAULT]) }), createNamespace({ prefix: 'conf', seed: 7 }));
let result: ExploreResult;
let file: FindingFile;
let script: string;

describe(`a finding of the exploration (fake with ${FAULT} broken)`, () => {
  it('is the broken rule, at its level, with a minimal program', { timeout: 300_000 }, async () => {
    result = await explore(broken(), { seed: 7, runs: 60, maxSteps: 25, maxFindings: 1 });
    const finding = result.findings[0];
    expect(finding?.rule).toBe(FAULT);
    expect(finding?.level).toBe('MUST');
    expect(finding!.steps.filter((s) => !s.resolve).length).toBeLessThanOrEqual(8);
    const [paths] = writeFindings(dir, result, '2.4.0', []);
    file = JSON.parse(readFileSync(paths!.json, 'utf8')) as FindingFile;
    script = readFileSync(paths!.script, 'utf8');
  });

  it('is reported as a FAIL with both answers, the program and how to replay it', () => {
    const meta = explorationMeta(result, { baseUrl: 'http://fake', kind: 'fake', apiVersion: '2.4.0', seed: 7, profile: 'default', readOnly: false }, [{ json: join(dir, 'explore/finding-1.json'), script: join(dir, 'explore/finding-1.sh') }], 'besi-conformance explore');
    const verdict = meta.ruleResults![FAULT]!;
    expect(meta.status).toBe('fail');
    expect(verdict.status).toBe('FAIL');
    expect(verdict.message).toMatch(/differs from the reference model at/);
    expect(verdict.message).toMatch(/Program \(as sent to the target\):\n {2}1\. /);
    expect(verdict.message).toMatch(/--replay .*finding-1\.json/);
    expect(verdict.expected).not.toEqual(verdict.actual);
  });

  it("is the target's: a healthy model replaying its program agrees with the model, a model that breaks the same rule differs from it the same way (a difference the oracle would make itself, never charged)", { timeout: 120_000 }, async () => {
    const finding = { ...result.findings[0]!, apiVersion: '2.4.0' };
    expect(await modelDiffersFromItself(finding)).toBe(false);
    expect(await modelDiffersFromItself(finding, createFakeApp({ faults: faultsFor([FAULT]) }))).toBe(true);
  });

  it('replays: it still differs on the broken fake, and not on the healthy one', { timeout: 120_000 }, async () => {
    expect((await replayFinding(file, broken())).reproduced).toBe(true);
    expect((await replayFinding(file, inProcessTarget(createFakeApp(), createNamespace({ prefix: 'conf', seed: 7 })))).reproduced).toBe(false);
  });

  it('replays as a curl script: the target answers each call as it did', { timeout: 120_000 }, async (ctx) => {
    if (spawnSync('curl', ['--version']).status !== 0) ctx.skip('curl is not installed here');
    expect(script).not.toMatch(/am_sk_/);
    const fake = await createFakeServer({ port: 0, faults: [FAULT] });
    try {
      // Asynchronously: the fake answering the script runs in this process.
      const { stdout: out } = await promisify(execFile)('sh', ['-c', script], { env: { ...process.env, BASE_URL: fake.url, API_KEY: fake.apiKey }, encoding: 'utf8', timeout: 60_000 });
      const statuses = [...out.matchAll(/^\[(\d{3})\]$/gm)].map((m) => Number(m[1]));
      const expected = file.steps.filter((s) => !s.resolve).map((s) => s.target.status);
      // The script's own calls around the program: tenants.create, clock.set before, tenants.delete after.
      expect(statuses.slice(2, 2 + expected.length)).toEqual(expected);
    } finally {
      await fake.close();
    }
  });
});
