/** The result of a lint run, as every output format reads it. */
import type { AgainstResult } from './against.js';
import type { FileLint, LintFinding } from './lint-file.js';

export interface FileReport extends FileLint {
  /** As shown to users (relative to the working directory when below it). */
  path: string;
}

export interface LintReport {
  files: FileReport[];
  /** Where choice references were checked against, if anywhere. */
  choiceSource: string | null;
  /** `--against`: what the documents were compared with, the breaks allowed, information lines. */
  against?: AgainstResult;
}

export interface LintSummary {
  files: number;
  skipped: number;
  documents: number;
  errors: number;
  warnings: number;
}

export function summarise(report: LintReport): LintSummary {
  const all = report.files.flatMap((f) => f.findings);
  return {
    files: report.files.filter((f) => !f.skipped).length,
    skipped: report.files.filter((f) => f.skipped).length,
    documents: report.files.reduce((n, f) => n + f.documents.length, 0),
    errors: all.filter((f) => f.severity === 'error').length,
    warnings: all.filter((f) => f.severity === 'warning').length,
  };
}

export type Formatter = (report: LintReport, options: { color: boolean; toolVersion: string }) => string;

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export type { LintFinding };
