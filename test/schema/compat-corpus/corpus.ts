/**
 * The corpus of real event-type documents: the project's v2 fixtures, plus the v2 documents of
 * the shared EarthRanger corpus when that folder is present (read in place, never copied into
 * the project). Choice lists: the fixtures' `choices.json` files, and the lists mutations derive.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { groupChoices, toChoiceRecords } from '../../../schema/index.js';
import type { ChoiceEntry } from '../../../schema/pre-render.js';
import { repoRoot, sharedCorpus } from '../support.js';

export type Doc = { json: Record<string, any>; ui: Record<string, any> };
export interface CorpusDoc { name: string; value: string; doc: Doc }

const readJson = (...segments: string[]): any => JSON.parse(readFileSync(path.join(repoRoot, ...segments), 'utf8'));
const isDoc = (v: unknown): v is Doc => !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as Doc).json === 'object' && (v as Doc).json !== null;

export function fixtureDocs(): CorpusDoc[] {
  const docs: CorpusDoc[] = [
    { name: 'fixtures/schemas/every-field-kind', value: 'every_field_kind', doc: readJson('fixtures', 'schemas', 'every-field-kind.v2.json') },
    { name: 'fixtures/lint/valid', value: 'lint_valid', doc: readJson('fixtures', 'lint', 'valid.v2.json') },
  ];
  for (const type of readJson('fixtures', 'demo', 'event-types.json').event_types as Array<{ value: string; schema: unknown }>) {
    if (isDoc(type.schema)) docs.push({ name: `fixtures/demo/${type.value}`, value: type.value, doc: type.schema });
  }
  return docs;
}

/** The shared corpus's v2 documents, or a skip reason when the folder is absent. */
export function sharedDocs(): { docs: CorpusDoc[]; skip: string | false } {
  const corpus = sharedCorpus('corpus', 'earthranger');
  if (corpus.skip) return { docs: [], skip: corpus.skip };
  const docs: CorpusDoc[] = [];
  for (const file of readdirSync(corpus.dir).filter((f) => f.endsWith('.v2.json')).sort()) {
    const content = JSON.parse(readFileSync(path.join(corpus.dir, file), 'utf8')) as Record<string, any>;
    // a file is a document, or wraps documents (a JS module's exports, an event type's `schema`)
    const found = [content, ...Object.values(content)].filter(isDoc);
    const base = file.replace(/\.v2\.json$/, '').split('__').pop()!.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
    found.forEach((doc, i) => docs.push({ name: `shared/${file}#${i}`, value: typeof content.value === 'string' ? content.value : `${base}_${i}`, doc }));
  }
  return { docs, skip: false };
}

/** The fixtures' choice lists, in a map mutations may add derived lists to. */
export function fixtureChoiceLists(): Map<string, ChoiceEntry[]> {
  const records = [...toChoiceRecords(readJson('fixtures', 'schemas', 'choices.json')), ...toChoiceRecords(readJson('fixtures', 'demo', 'choices.json'))];
  return groupChoices(records);
}
