/** Lints every collected file (the command only parses options and prints). */
import { readFile } from 'node:fs/promises';
import { groupChoices, toChoiceRecords } from '../../schema/index.js';
import type { MirrorStore } from '../../sync/mirror/store.js';
import { displayPath } from '../output/paths.js';
import type { LintTarget } from './collect-files.js';
import { lintText, type LintOptions } from './lint-file.js';
import type { LintReport } from './report.js';

export async function runLint(targets: readonly LintTarget[], choices: LintOptions['choices']): Promise<LintReport> {
  const files = [];
  for (const target of targets) {
    const text = await readFile(target.path, 'utf8');
    files.push({ path: displayPath(target.path), ...lintText(text, { explicit: target.explicit, choices }) });
  }
  return { files, choiceSource: choices?.source ?? null };
}

/** The choice lists a mirror knows, when it has synced them. */
export async function mirrorChoiceLists(store: MirrorStore): Promise<LintOptions['choices'] | undefined> {
  const meta = await store.meta();
  const checkpoint = (await store.checkpoints()).find((c) => c.resource === 'choices');
  if (!meta || checkpoint?.status !== 'ok') return undefined;
  const records = toChoiceRecords((await store.items('choices')).map((c) => c.record));
  return { active: groupChoices(records), known: new Set(records.map((r) => r.field)), source: `${meta.server} (mirror of ${checkpoint.syncedAt})` };
}
