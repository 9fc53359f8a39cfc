/** Machine-readable output: every file, its kind and documents, every finding with its position. */
import { summarise, type Formatter } from '../report.js';

export const json: Formatter = (report) =>
  JSON.stringify(
    {
      summary: summarise(report),
      choice_source: report.choiceSource,
      ...(report.against ? { against: { source: report.against.source, allowed_breaks: report.against.allowed, notes: report.against.notes } } : {}),
      files: report.files.map((f) => ({ path: f.path, kind: f.kind, documents: f.documents, skipped: f.skipped ?? null, findings: f.findings })),
    },
    null,
    2,
  ) + '\n';
