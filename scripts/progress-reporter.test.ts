import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { formatElapsed, progressCounter, ProgressReporter } from './progress-reporter.ts';

/** A running file as the reporter reads it: its path and its tests' states. */
function module(path: string, states: string[]): TestModule {
  const tests = states.map((state) => ({ result: () => ({ state }) }));
  return { moduleId: `/repo/${path}`, relativeModuleId: path, children: { allTests: () => tests.values() } } as unknown as TestModule;
}

function reporter() {
  let now = 0;
  const lines: string[] = [];
  const progress = new ProgressReporter({ silenceMs: 20_000, always: true, now: () => now, write: (line) => lines.push(line) });
  progress.onTestRunStart();
  progress.onTestRunEnd(); // the timer is not needed: check() is called by hand
  return { progress, lines, at: (ms: number) => void (now = ms) };
}

describe('the progress reporter', () => {
  it('after 20 s without output names every running file with its tests done and its time, then waits another 20 s', () => {
    const { progress, lines, at } = reporter();
    progress.onTestModuleQueued(module('suites/meta/can-fail-1.test.ts', ['passed', 'failed', 'pending']));
    at(5_000);
    progress.onTestModuleQueued(module('fake-server/packaged.test.ts', []));
    at(10_000);
    progress.onTestModuleQueued(module('spec/other.test.ts', []));
    progress.onTestModuleCollected(module('spec/other.test.ts', ['passed']));
    at(19_999);
    progress.check();
    expect(lines).toEqual([]);
    at(20_000);
    progress.check();
    expect(lines).toEqual(['… 20s into the run, still running: suites/meta/can-fail-1.test.ts (2 of 3 tests done, 20s); fake-server/packaged.test.ts (loading, 15s); spec/other.test.ts (1 of 1 tests done, 10s)']);
    at(39_000);
    progress.check();
    expect(lines).toHaveLength(1);
    at(40_000);
    progress.check();
    expect(lines).toHaveLength(2);
  });

  it('counts a file ending or a console line as output, and says nothing when no file runs', () => {
    const { progress, lines, at } = reporter();
    const ending = module('a.test.ts', ['passed']);
    progress.onTestModuleQueued(ending);
    progress.onTestModuleQueued(module('b.test.ts', ['pending']));
    at(15_000);
    progress.onTestModuleEnd(ending);
    at(30_000);
    progress.onUserConsoleLog();
    at(49_999);
    progress.check();
    expect(lines).toEqual([]);
    at(50_000);
    progress.check();
    expect(lines).toEqual(['… 50s into the run, still running: b.test.ts (0 of 1 tests done, 50s)']);
    progress.onTestRunEnd();
    at(100_000);
    progress.check();
    expect(lines).toHaveLength(1);
  });

  it('writes times as seconds, or minutes and seconds', () => {
    expect([formatElapsed(9_999), formatElapsed(60_000), formatElapsed(95_500)]).toEqual(['9s', '1m00s', '1m35s']);
  });
});

describe('a progress counter', () => {
  it('prints its count at most every 10 s, and at the last', () => {
    let now = 0;
    const lines: string[] = [];
    const tick = progressCounter('explore', 4, 'programs', { now: () => now, write: (line) => lines.push(line) });
    now = 9_999;
    tick();
    now = 10_000;
    tick();
    now = 15_000;
    tick();
    tick();
    expect(lines).toEqual(['explore: 2 of 4 programs (10s)', 'explore: 4 of 4 programs (15s)']);
  });
});
