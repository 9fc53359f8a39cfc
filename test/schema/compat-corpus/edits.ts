/**
 * Non-breaking edits: changes no stored event is hurt by — titles, descriptions, layout moves,
 * added optional fields, widened constraints, a choice added, a requirement dropped, and the
 * removal of the field and the choices the generator reserved (no event holds them). Each edit
 * takes its own field (none of `busy`), so any subset applies together.
 */
import type { ChoiceEntry } from '../../../schema/pre-render.js';
import type { CorpusDoc, Doc } from './corpus.js';
import { addChoice, choiceNode, deleteField, moveInLayout, props, removeChoice } from './doc-edit.js';
import { choiceCandidates, reservedField } from './generate.js';

type Json = any;
export interface Edit { describe: string; mutate(doc: Doc): void }

export function nonBreakingEdits(entry: CorpusDoc, lists: Map<string, ChoiceEntry[]>, busy: ReadonlySet<string>): Edit[] {
  const json = entry.doc.json;
  const used = new Set(busy);
  const fields = Object.entries<Json>(json.properties ?? {});
  const take = (test: (name: string, field: Json) => boolean): string | undefined => {
    const found = fields.find(([name, field]) => !used.has(name) && test(name, field));
    if (found) used.add(found[0]);
    return found?.[0];
  };
  const edits: Edit[] = [
    { describe: 'schema title', mutate: (d) => { d.json.title = `${String(d.json.title ?? entry.value)} (revised)`; } },
    { describe: 'layout move', mutate: (d) => { moveInLayout(d); } },
    { describe: 'optional field added', mutate: (d) => { props(d).added_remark = { type: 'string', title: 'Added remark' }; } },
  ];
  const reserved = reservedField(json);
  if (reserved !== undefined && !used.has(reserved)) {
    used.add(reserved);
    edits.push({ describe: `reserved field ${reserved} removed`, mutate: (d) => deleteField(d, reserved) });
  }
  const lookup = (l: string): ChoiceEntry[] | null => lists.get(l) ?? null;
  const choiceField = take((_, f) => (choiceCandidates(choiceNode(f), lookup)?.length ?? 0) >= 2 && removeChoice(structuredClone(choiceNode(f)), choiceCandidates(choiceNode(f), lookup)!.at(-1), new Map(lists)));
  if (choiceField) {
    const last = choiceCandidates(choiceNode(json.properties[choiceField]), lookup)!.at(-1);
    edits.push({ describe: `reserved choice ${JSON.stringify(last)} of ${choiceField} removed`, mutate: (d) => { removeChoice(choiceNode(props(d)[choiceField]), last, lists); } });
  }
  const addTo = take((_, f) => addChoice(structuredClone(choiceNode(f)), 'added_choice'));
  if (addTo) edits.push({ describe: `choice added to ${addTo}`, mutate: (d) => { addChoice(choiceNode(props(d)[addTo]), 'added_choice'); } });
  const retitle = take(() => true);
  if (retitle) edits.push({ describe: `title of ${retitle}`, mutate: (d) => { props(d)[retitle].title = `Revised ${retitle}`; } });
  const described = take(() => true);
  if (described) edits.push({ describe: `description of ${described}`, mutate: (d) => { props(d)[described].description = 'Revised help text'; } });
  const widenMax = take((_, f) => typeof f.maximum === 'number');
  if (widenMax) edits.push({ describe: `maximum of ${widenMax} raised`, mutate: (d) => { props(d)[widenMax].maximum += 1000; } });
  const widenLen = take((_, f) => typeof f.maxLength === 'number' || typeof f.minLength === 'number' || typeof f.pattern === 'string');
  if (widenLen) edits.push({ describe: `length/pattern of ${widenLen} relaxed`, mutate: (d) => { const f = props(d)[widenLen]; delete f.minLength; delete f.pattern; if (typeof f.maxLength === 'number') f.maxLength += 100; } });
  const toNumber = take((_, f) => f.type === 'integer');
  if (toNumber) edits.push({ describe: `${toNumber} integer → number`, mutate: (d) => { props(d)[toNumber].type = 'number'; } });
  const optional = take((name) => Array.isArray(json.required) && json.required.includes(name));
  if (optional) edits.push({ describe: `${optional} no longer required`, mutate: (d) => { d.json.required = d.json.required.filter((r: string) => r !== optional); } });
  return edits;
}
