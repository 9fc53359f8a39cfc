/**
 * Offline v1 → v2 migration of files with the toolkit's `migrateV1ToV2`. Files are migrated in
 * order and the choice lists created for one are known to the next, so two files with the same
 * inline list share it and different lists of the same name get distinct names (`_2`, ...).
 */
import path from 'node:path';
import { migrateV1ToV2, type ChoiceEntry, type NewChoice, type SchemaIssue } from '../../schema/index.js';

export interface MigratedFile {
  input: string;
  /** File name of the v2 document in the output directory (null when it is not written). */
  output: string | null;
  document: unknown;
  newChoices: NewChoice[];
  warnings: SchemaIssue[];
  errors: SchemaIssue[];
}

export interface OfflineMigration {
  files: MigratedFile[];
  newChoices: NewChoice[];
}

export function migrateFiles(inputs: ReadonlyArray<{ path: string; text: string }>, existing: ReadonlyMap<string, readonly ChoiceEntry[]>, baseUrl: string): OfflineMigration {
  const lists = new Map<string, ChoiceEntry[]>([...existing].map(([field, entries]) => [field, [...entries]]));
  const names = new Set<string>();
  const files: MigratedFile[] = [];
  const created: NewChoice[] = [];
  for (const input of inputs) {
    const result = migrateV1ToV2(input.text, { baseUrl, choices: lists });
    for (const choice of result.newChoices) {
      const list = lists.get(choice.field) ?? [];
      if (!list.some((e) => e.value === choice.value)) {
        list.push({ value: choice.value, display: choice.display });
        lists.set(choice.field, list);
        created.push(choice);
      }
    }
    const ok = result.errors.length === 0 && result.document !== null;
    files.push({ input: input.path, output: ok ? uniqueName(outputName(input.path), names) : null, ...result });
  }
  return { files, newChoices: created };
}

/** `carcass_rep.v1.txt` → `carcass_rep.v2.json`; `x.json` → `x.v2.json`. */
export function outputName(file: string): string {
  const base = path.basename(file).replace(/(\.v1)?\.(txt|json)$/i, '');
  return `${base}.v2.json`;
}

function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  for (let n = 2; used.has(candidate); n++) candidate = name.replace(/\.v2\.json$/, `-${n}.v2.json`);
  used.add(candidate);
  return candidate;
}
