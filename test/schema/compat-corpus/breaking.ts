/**
 * Seeded breaking changes: for one corpus document and what its generated events hold, every
 * change of each rule that hurts some of those events (the test draws 40 of them). Each is a
 * mutation of a fresh copy of the document; the expected count is computed by the test from the
 * events themselves (present keys, or validation against the old and new field schemas).
 */
import type { CompatRule, UsageSummary } from '../../../schema/compat/index.js';
import type { ChoiceEntry } from '../../../schema/pre-render.js';
import type { ChoiceLookup } from '../../../schema/diff/index.js';
import type { CorpusDoc, Doc } from './corpus.js';
import { choiceNode, deleteField, props, removeChoice } from './doc-edit.js';
import { choiceCandidates, reservedField } from './generate.js';
import type { Rng } from './prng.js';

type Json = any;

export interface Seeded {
  rule: CompatRule;
  /** The top-level field concerned (absent for a renamed value). */
  field?: string;
  describe: string;
  /** The proposed `value` (a renamed value), else the document's own. */
  valueAfter?: string;
  mutate(doc: Doc): void;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function breakingCandidates(entry: CorpusDoc, usage: UsageSummary, lists: Map<string, ChoiceEntry[]>, rng: Rng): Seeded[] {
  const out: Seeded[] = [];
  const lookup: ChoiceLookup = (l) => lists.get(l) ?? null;
  const json = entry.doc.json;
  const required = new Set<string>(Array.isArray(json.required) ? json.required : []);
  if (usage.events > 0) out.push({ rule: 'breaking/renamed-value', describe: `${entry.value} → ${entry.value}_v2`, valueAfter: `${entry.value}_v2`, mutate: () => {} });
  for (const [name, field] of Object.entries<Json>(json.properties ?? {})) {
    const held = Object.hasOwn(usage.fields, name) ? usage.fields[name]! : undefined;
    if (!held || held.events === 0 || name === reservedField(json)) continue;
    out.push({ rule: 'breaking/removed-field', field: name, describe: `remove ${name}`, mutate: (d) => deleteField(d, name) });
    if (!required.has(name) && held.events < usage.events) {
      out.push({ rule: 'breaking/required-added', field: name, describe: `require ${name}`, mutate: (d) => { d.json.required = [...(d.json.required ?? []), name]; } });
    }
    const candidates = choiceCandidates(choiceNode(field), lookup);
    if (candidates) {
      const heldChoices = held.values.map((v) => v.value).filter((v) => candidates.some((c) => JSON.stringify(c) === JSON.stringify(v)));
      if (heldChoices.length > 0) {
        const value = rng.pick(heldChoices);
        const trial = structuredClone(field);
        if (removeChoice(choiceNode(trial), value, new Map(lists))) {
          out.push({ rule: 'breaking/removed-choice', field: name, describe: `remove choice ${JSON.stringify(value)} of ${name}`, mutate: (d) => { removeChoice(choiceNode(props(d)[name]), value, lists); } });
        }
      }
      continue;
    }
    const narrowings = narrowingsOf(name, field, held);
    if (narrowings.length > 0) out.push(rng.pick(narrowings));
  }
  return out;
}

function narrowingsOf(name: string, field: Json, held: UsageSummary['fields'][string]): Seeded[] {
  const out: Seeded[] = [];
  const narrow = (describe: string, mutate: (f: Json) => void): void => {
    out.push({ rule: 'breaking/narrowed-type', field: name, describe: `${name}: ${describe}`, mutate: (d) => mutate(props(d)[name]) });
  };
  const numbers = [...new Set(held.values.map((v) => v.value).filter((v): v is number => typeof v === 'number'))].sort((a, b) => a - b);
  const strings = held.values.map((v) => v.value).filter((v): v is string => typeof v === 'string');
  if (field.type === 'number' && (held.kinds.number ?? 0) > 0) narrow('number → integer', (f) => { f.type = 'integer'; });
  if ((field.type === 'number' || field.type === 'integer') && numbers.length >= 2) {
    const bound = numbers[Math.floor((numbers.length - 1) / 2)]!;
    narrow(`maximum ${bound}`, (f) => { f.maximum = bound; delete f.exclusiveMaximum; });
  }
  if (field.type === 'string' && field.format === undefined && (held.kinds.string ?? 0) > 0) {
    if ((held.max_length ?? 0) >= 2 && held.min_length !== held.max_length) narrow(`maxLength ${held.max_length! - 1}`, (f) => { f.maxLength = held.max_length! - 1; });
    if (strings.length >= 2) {
      const keep = strings.slice(0, Math.ceil(strings.length / 2));
      narrow('string → enum', (f) => { f.enum = keep; });
      narrow('pattern', (f) => { f.pattern = `^${escapeRegExp(strings[0]!)}$`; });
    }
    narrow('string → integer', (f) => { f.type = 'integer'; delete f.maxLength; delete f.minLength; delete f.pattern; });
  }
  if (field.type === 'boolean') narrow('boolean → string', (f) => { f.type = 'string'; });
  return out;
}
