/** The files a run writes into its report directory, all rendered from report.json. */
export const REPORT_FILES = {
  json: 'report.json',
  html: 'report.html',
  markdown: 'summary.md',
  junit: 'junit.xml',
} as const;
