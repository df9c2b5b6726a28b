/**
 * The environment of a conformance run (or a shell) a test starts as a user would: this process's,
 * without any target, key, report directory or suite setting of the test run, nor vitest's own
 * variables. The run takes its target from what the test gives it, like a fresh shell.
 * `CONFORMANCE_EXPLORE_SECONDS` passes: the unit project (vitest.config.ts) shortens how long every
 * run explores once its scenarios are done, which changes no outcome a test checks, only its time
 * (a whole run by URL explored 10 s alone, not 3, where it was dropped; 90 s in all by default now).
 */
const NOT_INHERITED = /^(VITEST|TEST$|NODE_OPTIONS$|NODE_ENV$|MODE$|DEV$|PROD$|SSR$|BASE_URL$|API_KEY$|OTHER_TENANT_API_KEY$|API_VERSION$|REPORT_DIR$|CONFORMANCE_(?!EXPLORE_SECONDS$))/;

export function childEnvironment(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !NOT_INHERITED.test(entry[0])));
}
