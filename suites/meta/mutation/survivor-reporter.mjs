// Stryker reporter `survivors`: appends each mutant no test detected (Survived, NoCoverage) to
// reports/mutation/survivors.txt as soon as it is known, so that triage of a long run can start
// before the run ends. Listed in stryker.config.mjs; the file is emptied when a run starts.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { declareClassPlugin, PluginKind } from '@stryker-mutator/api/plugin';

export const SURVIVORS_FILE = 'reports/mutation/survivors.txt';

class SurvivorReporter {
  constructor() {
    mkdirSync(dirname(SURVIVORS_FILE), { recursive: true });
    writeFileSync(SURVIVORS_FILE, '');
  }

  onMutantTested(result) {
    if (result.status !== 'Survived' && result.status !== 'NoCoverage') return;
    const { fileName, location, mutatorName, replacement, status } = result;
    appendFileSync(SURVIVORS_FILE, `${status} ${fileName}:${location.start.line}:${location.start.column} ${mutatorName}: ${JSON.stringify(replacement)}\n`);
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, 'survivors', SurvivorReporter)];
