/** Lints every collected file (the command only parses options and prints). */
import { readFile } from 'node:fs/promises';
import type { AllowedBreak } from '../../schema/compat/types.js';
import { groupChoices, toChoiceRecords } from '../../schema/index.js';
import type { MirrorStore } from '../../sync/mirror/store.js';
import { displayPath } from '../output/paths.js';
import type { AgainstFile, AgainstSource } from './against.js';
import type { LintTarget } from './collect-files.js';
import { lintText, type LintOptions } from './lint-file.js';
import type { FileReport, LintReport } from './report.js';

export interface AgainstOptions {
  source: AgainstSource;
  allow: readonly AllowedBreak[];
}

export async function runLint(targets: readonly LintTarget[], choices: LintOptions['choices'], against?: AgainstOptions): Promise<LintReport> {
  const files: FileReport[] = [];
  const compared: AgainstFile[] = [];
  const { compatTargets } = against ? await import('./compat-targets.js') : { compatTargets: null };
  for (const target of targets) {
    const text = await readFile(target.path, 'utf8');
    const file: FileReport = { path: displayPath(target.path), ...lintText(text, { explicit: target.explicit, choices }) };
    files.push(file);
    const documents = compatTargets && !file.skipped ? compatTargets(target.path, text) : [];
    // The file's findings array is shared: compareAgainst adds to it in place.
    if (documents.length) compared.push({ path: file.path, text, targets: documents, findings: file.findings });
  }
  if (!against) return { files, choiceSource: choices?.source ?? null };
  const { compareAgainst } = await import('./against.js');
  const result = await compareAgainst(compared, against.source, against.allow);
  return { files, choiceSource: choices?.source ?? null, against: result };
}

/** The choice lists a mirror knows, when it has synced them. */
export async function mirrorChoiceLists(store: MirrorStore): Promise<LintOptions['choices'] | undefined> {
  const meta = await store.meta();
  const checkpoint = (await store.checkpoints()).find((c) => c.resource === 'choices');
  if (!meta || checkpoint?.status !== 'ok') return undefined;
  const records = toChoiceRecords((await store.items('choices')).map((c) => c.record));
  return { active: groupChoices(records), known: new Set(records.map((r) => r.field)), source: `${meta.server} (mirror of ${checkpoint.syncedAt})` };
}
