/**
 * The conformance reporter as a vitest reporter module, for runs vitest starts itself, chiefly the
 * merge of sharded blob reports into one set of reports:
 *   npx vitest run --merge-reports=blobs --reporter=./suites/report/vitest-reporter.ts
 */
import { RULES } from '../../spec/rules/catalogue.ts';
import { CONFORMANCE_PROJECT } from '../conformance-project.ts';
import { ConformanceReporter } from '../framework/reporter.ts';

export default class ConformanceVitestReporter extends ConformanceReporter {
  constructor() {
    super({ catalogue: RULES, projects: [CONFORMANCE_PROJECT] });
  }
}
