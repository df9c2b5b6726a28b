/**
 * Writes a report and everything rendered from it into a directory: `report.json`, `report.html`,
 * `summary.md` and `junit.xml`. Each file is written to a temporary name and renamed, so a reader
 * (or a run killed half-way) never sees half a file.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { renderHtml } from './report-html.ts';
import { renderJunit } from './report-junit.ts';
import { renderMarkdown } from './report-markdown.ts';
import { REPORT_FILES } from './files.ts';
import type { ConformanceReport } from './schema.ts';


export function writeReportFiles(dir: string, report: ConformanceReport): void {
  mkdirSync(dir, { recursive: true });
  writeAtomically(join(dir, REPORT_FILES.json), `${JSON.stringify(report, null, 2)}\n`);
  writeAtomically(join(dir, REPORT_FILES.html), renderHtml(report));
  writeAtomically(join(dir, REPORT_FILES.markdown), renderMarkdown(report));
  writeAtomically(join(dir, REPORT_FILES.junit), renderJunit(report));
}

export function writeAtomically(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

/** A path as a person reads it: relative to the working directory when inside it, else absolute. */
export function shownPath(path: string): string {
  const shown = relative(process.cwd(), path) || '.';
  return shown.startsWith('..') ? path : shown;
}
