/**
 * Naming a bug nobody foresaw: a fault left out of the catalogue stands for it. A fault of another
 * rule that reproduces the first difference, but not the same calls asked otherwise, only mimics
 * it, and the owners' rule names the finding; with the fault back in the catalogue, the fault names
 * it (docs/exploration.md gives the figures over a sample of the catalogue).
 */
import { describe, expect, it } from 'vitest';
import { createFakeApp } from '../../fake-server/app.ts';
import { FAULTS, faultsFor } from '../../fake-server/faults/index.ts';
import { createNamespace } from '../framework/namespace.ts';
import { localise } from './attribution.ts';
import { explore } from './explorer.ts';
import { inProcessTarget } from './targets.ts';

/** The target cannot read a JSON body; another fault (every request carrying the version header refused) answers its first difference alike. */
const BUG = 'CONV-POST-JSON';
const MIMIC = 'AUTH-API-VERSION-HEADER';

describe('a finding of a bug the catalogue does not know', () => {
  it(`is named by its owners (${BUG}), not by a fault that only mimics its first difference (${MIMIC}); known, by its fault`, { timeout: 120_000 }, async () => {
    const broken = () => inProcessTarget(createFakeApp({ faults: faultsFor([BUG]) }), createNamespace({ prefix: 'conf', seed: 5 }));
    const result = await explore(broken(), { seed: 5, runs: 5, maxSteps: 10, maxFindings: 1, shrinkRuns: 10, localise: false });
    const finding = { ...result.findings[0]!, apiVersion: '2.4.0' };
    expect(finding.rule).toBe(BUG);

    const unforeseen = await localise(finding, { target: broken(), catalogue: [...FAULTS.values()].filter((fault) => fault.rule !== BUG) });
    expect(unforeseen.reproducing).toContain(MIMIC);
    expect(unforeseen).toMatchObject({ rule: BUG, how: 'owner' });
    expect(unforeseen.note).toMatch(new RegExp(`^[A-Z0-9-, ]*${MIMIC}[A-Z0-9-, ]* reproduces? the first difference, but not .* as the target answers them: another bug; ${BUG} owns`));

    const known = await localise(finding, { target: broken() });
    expect(known).toMatchObject({ rule: BUG, how: 'fault' });
  });
});
