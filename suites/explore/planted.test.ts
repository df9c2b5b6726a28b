/**
 * planted.ts scores a batch of planted bugs in counts and patch numbers only, against the batch's
 * index (each bug's dimension and the rule it breaks), so a batch kept unseen stays unseen.
 */
import { describe, expect, it } from 'vitest';
import { scoreAgainstIndex, type PlantedResult } from './planted.ts';

const run = (patch: string, fail: string[], fromExploration: string[] = [], byExploration = fromExploration): PlantedResult => ({ patch, run: { exitCode: fail.length > 0 ? 1 : 0, seconds: 30, fail, fromExploration, byExploration } });

describe('scoreAgainstIndex', () => {
  it('counts what each way caught, and under the bug’s own rule or one it breaks as well, per dimension, naming missed bugs by number only', () => {
    const index = {
      '01-secret-name.patch': { dimension: 'D1', rule: 'RULE-A', level: 'MUST' },
      '02-other-secret.patch': { dimension: 'D1', rule: 'RULE-B', level: 'MUST', alsoAcceptable: ['RULE-C'] },
      '03-third.patch': { dimension: 'D2', rule: 'RULE-D', level: 'SHOULD' },
    };
    const lines = scoreAgainstIndex(
      [
        run('01-secret-name.patch', ['RULE-A:MUST']),
        // Caught by the exploration only, under a rule the bug breaks as well.
        run('02-other-secret.patch', ['RULE-C:MUST'], ['RULE-C:MUST']),
        // Caught by a scenario under another rule; the exploration failed the same rule too.
        run('03-third.patch', ['RULE-X:MUST'], [], ['RULE-X:MUST']),
      ],
      index,
    );
    expect(lines).toEqual([
      'scenarios and exploration: 3 of 3 caught (100%), 2 under their own rule; missed: none',
      'scenarios: 2 of 3 caught (67%), 1 under their own rule; missed: 02',
      'exploration: 2 of 3 caught (67%), 1 under their own rule; missed: 01',
      '  D1: 2 of 2 caught, 2 under their own rule',
      '  D2: 1 of 1 caught, 0 under their own rule',
    ]);
    expect(lines.join('\n')).not.toMatch(/secret|third/);
  });

  it('reads an index keyed by the patches’ numbers as one keyed by their file names', () => {
    const lines = scoreAgainstIndex([run('01.patch', ['RULE-A:MUST']), run('02.patch', [])], { '01': { dimension: 'D1', rule: 'RULE-A', level: 'MUST' }, '02': { dimension: 'D1', rule: 'RULE-B', level: 'MUST' } });
    expect(lines[0]).toBe('scenarios and exploration: 1 of 2 caught (50%), 1 under their own rule; missed: 02');
  });
});
