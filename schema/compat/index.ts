/**
 * Issue 28: the breaking-change lint. Compares a proposed event-type document with the current
 * one AND with what the stored events of the type hold (a `UsageSummary`): a change is a finding
 * only when some stored event is hurt by it, with how many. Pure and synchronous (choice lists
 * through a `ChoiceLookup`, as for the diff).
 *
 * Scope: usage is counted per top-level `event_details` key, so the rules judge top-level fields
 * (what a change inside an object or a list of objects does to stored events is not known:
 * no finding; the diff still lists it). Rules (ids in types.ts):
 * - removed-field: a field the stored events hold is gone; a likely rename (the diff's heuristic)
 *   is reported the same way (values recorded under the old key no longer show), saying so.
 * - removed-choice / narrowed-type: value-rules.ts.
 * - required-added: a field newly required (or a new required field, or a `required` name no
 *   property defines) that stored events lack: `events - fields[key].events`, exactly.
 * - renamed-value: the type's `value` changes while events are stored under the old one.
 * A key an incomplete summary (`fields_complete` false) does not list gets no usage finding.
 * `before` null (a new type) or `usage` null (unknown) gives no findings. Documents beyond the
 * diff's limits throw `SchemaDiffLimitError` (as `diffSchemaDocuments` does); work is linear in
 * the documents plus the summary's listed values of the fields whose value rules changed.
 */
import { diffSchemaDocuments, flattenSchema, type ChoiceLookup, type DiffField, type FlatSchema, type SchemaDiff } from '../diff/index.js';
import { normaliseDocument } from '../normalise.js';
import { eventsText, finalise, sample, type FindingDraft } from './findings.js';
import type { AllowedBreak, CompatFinding, FieldUsage, UsageSummary } from './types.js';
import { valueHurts } from './value-rules.js';

export * from './types.js';
export { summariseEvents } from './summarise.js';

export interface CompatInput {
  /** The current revision's {json, ui} (null: a new type, nothing can break). */
  before: unknown;
  /** The proposed {json, ui}. */
  after: unknown;
  /** The type's current `value` and the proposed one (a difference is a renamed value). */
  beforeValue: string;
  afterValue: string;
  /** What the stored events of `beforeValue` hold (null: unknown, no usage findings). */
  usage: UsageSummary | null;
  choices?: ChoiceLookup;
  allow?: readonly AllowedBreak[];
}

export function checkCompatibility(input: CompatInput): { findings: CompatFinding[]; diff: SchemaDiff } {
  const diff: SchemaDiff = input.before === null ? { identical: false, changes: [] } : diffSchemaDocuments(input.before, input.after, { choices: input.choices });
  const usage = input.usage;
  if (input.before === null || usage === null || usage.events <= 0) return { findings: [], diff };
  const old = flattenSchema(normaliseDocument(input.before), input.choices);
  const now = flattenSchema(normaliseDocument(input.after), input.choices);
  const drafts: FindingDraft[] = [];
  if (input.beforeValue !== input.afterValue) {
    drafts.push({
      rule: 'breaking/renamed-value', pointer: '', affected_events: usage.events,
      message: `the type's value changes from \`${input.beforeValue}\` to \`${input.afterValue}\`: ${eventsText(usage.events)} recorded under \`${input.beforeValue}\` no longer belong to it`,
      hint: 'keep the value, or create a new type and leave this one in place',
    });
  }
  const renames = topLevelRenames(diff);
  for (const field of topLevel(old)) {
    const held = fieldUsage(usage, field.name);
    if (!held || held.events <= 0) continue;
    const kept = now.fields.get(field.key);
    if (!kept) { drafts.push(removedField(field, held, renames.get(field.pointer), now)); continue; }
    const hurts = valueHurts(field, kept, held);
    if (hurts.removedChoice) {
      const h = hurts.removedChoice;
      drafts.push({
        rule: 'breaking/removed-choice', field: field.name, pointer: h.pointer, affected_events: h.events, ...(h.atLeast ? { affected_at_least: true } : {}),
        message: `choice${h.values.length === 1 ? '' : 's'} ${sample(h.values)} removed from \`${field.name}\`: ${eventsText(h.events, h.atLeast)} hold ${h.values.length === 1 ? 'it' : 'them'}`,
        hint: 'keep the choice (hide it from new reports instead), or allow the break with a reason',
      });
    }
    if (hurts.narrowed) {
      const h = hurts.narrowed;
      const what = [...h.kinds.map((k) => `${k} values`), ...(h.values.length > 0 ? [`values such as ${sample(h.values)}`] : [])].join(' and ') || 'values';
      drafts.push({
        rule: 'breaking/narrowed-type', field: field.name, pointer: h.pointer, affected_events: h.events, ...(h.atLeast ? { affected_at_least: true } : {}),
        message: `\`${field.name}\` narrowed: ${eventsText(h.events, h.atLeast)} hold ${what} the proposed revision rejects`,
        hint: 'widen the type or constraint back, or migrate the stored values first',
      });
    }
  }
  requiredAdded(old, now, usage, drafts);
  return { findings: finalise(drafts, input.allow), diff };
}

function fieldUsage(usage: UsageSummary, name: string): FieldUsage | undefined {
  return Object.hasOwn(usage.fields, name) ? usage.fields[name] : undefined;
}

function topLevel(flat: FlatSchema): DiffField[] {
  return flat.children.get('') ?? [];
}

/** Old pointer → new field name, for top-level likely renames the diff reports. */
function topLevelRenames(diff: SchemaDiff): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of diff.changes) {
    if (c.kind === 'field.renamed' && c.fromPath && /^\/json\/properties\/[^/]*$/.test(c.fromPath) && typeof c.after === 'string') out.set(c.fromPath, c.after);
  }
  return out;
}

function removedField(field: DiffField, held: FieldUsage, renamedTo: string | undefined, now: FlatSchema): FindingDraft {
  const target = renamedTo === undefined ? undefined : topLevel(now).find((f) => f.name === renamedTo);
  const n = eventsText(held.events);
  return {
    rule: 'breaking/removed-field', field: field.name, pointer: target?.pointer ?? field.pointer, affected_events: held.events,
    message: target
      ? `field \`${field.name}\` looks renamed to \`${target.name}\`: ${n} hold \`${field.name}\`, whose values no longer show`
      : `field \`${field.name}\` removed: ${n} hold it, whose values no longer show`,
    hint: target ? `keep the key \`${field.name}\` (change only its title)` : 'keep the field (it may be left out of the layout), or allow the break with a reason',
  };
}

function requiredAdded(old: FlatSchema, now: FlatSchema, usage: UsageSummary, drafts: FindingDraft[]): void {
  const wasRequired = (name: string): boolean => old.required.get('')?.names.has(name) === true;
  const report = (name: string, pointer: string): void => {
    const held = fieldUsage(usage, name);
    // A key an incomplete summary does not list may still be held: no claim about it.
    if (!held && usage.fields_complete === false) return;
    const lacking = usage.events - (held?.events ?? 0);
    if (lacking <= 0 || wasRequired(name)) return;
    drafts.push({
      rule: 'breaking/required-added', field: name, pointer, affected_events: lacking,
      message: `\`${name}\` is now required: ${eventsText(lacking)} lack it and no longer validate`,
      hint: 'leave it optional, or give the stored events a value first',
    });
  };
  const list = now.required.get('');
  for (const name of list?.names ?? []) report(name, list!.pointer);
}

