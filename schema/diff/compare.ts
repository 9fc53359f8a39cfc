/**
 * Comparing two flattened schemas field by field: fields are matched by name under matched
 * parents, then likely renames pair what is left; each matched pair is compared on type,
 * format, required, choices, constraints, title, annotations and any other keyword.
 */
import { joinPointer } from '../json-pointer.js';
import type { ChoiceSet, ChoiceValue } from './choices.js';
import { canonicalJson } from './canonical.js';
import { constraintDirection, effectiveConstraint } from './constraints.js';
import { ITEMS_KEY_SUFFIX, kindFamily, type DiffField, type FlatSchema, type RequiredList } from './fields.js';
import { likelyRenames, type SlotOf } from './rename.js';
import type { Change } from './types.js';

const CHOICE_KINDS = new Set(['single_choice', 'multi_choice', 'inline_choice']);
const show = (value: unknown): string => (value === undefined ? 'none' : JSON.stringify(value) ?? String(value));

export interface FieldComparison {
  changes: Change[];
  /** Old top-level name → new name, for the layout comparison. */
  renamedTopLevel: Map<string, string>;
}

export function compareFields(before: FlatSchema, after: FlatSchema, slotBefore: SlotOf, slotAfter: SlotOf): FieldComparison {
  const out: FieldComparison = { changes: [], renamedTopLevel: new Map() };
  const queue: Array<[string, string]> = [['', '']];
  // breadth-first over matched parents: iterative, and each field is visited once
  for (let i = 0; i < queue.length; i++) {
    const [beforeKey, afterKey] = queue[i]!;
    const parentLabel = after.fields.get(afterKey)?.label;
    compareRequiredNames(before.required.get(beforeKey), after.required.get(afterKey), parentLabel, out.changes);
    if (afterKey !== '') compareRequiredNames(before.required.get(beforeKey + ITEMS_KEY_SUFFIX), after.required.get(afterKey + ITEMS_KEY_SUFFIX), parentLabel, out.changes);
    const olds = before.children.get(beforeKey) ?? [];
    const news = after.children.get(afterKey) ?? [];
    const newByName = new Map(news.map((f) => [f.name, f]));
    const oldNames = new Set(olds.map((f) => f.name));
    const pairs: Array<[DiffField, DiffField]> = [];
    const removed: DiffField[] = [];
    for (const old of olds) {
      const match = newByName.get(old.name);
      if (match) pairs.push([old, match]);
      else removed.push(old);
    }
    const added = news.filter((f) => !oldNames.has(f.name));
    const renames = likelyRenames(removed, added, slotBefore, slotAfter);
    const renamedOld = new Set(renames.map((r) => r.before));
    const renamedNew = new Set(renames.map((r) => r.after));
    for (const { before: old, after: now, reason } of renames) {
      out.changes.push({
        kind: 'field.renamed', path: now.pointer, fromPath: old.pointer, field: now.label, before: old.name, after: now.name,
        breaking: true, likely: true,
        message: `field \`${old.label}\` likely renamed to \`${now.label}\` (${reason}); values recorded under \`${old.name}\` no longer show`,
      });
      if (beforeKey === '') out.renamedTopLevel.set(old.name, now.name);
      pairs.push([old, now]);
    }
    for (const old of removed) {
      if (renamedOld.has(old)) continue;
      out.changes.push({ kind: 'field.removed', path: old.pointer, field: old.label, before: describe(old), breaking: true, message: `field \`${old.label}\` removed` });
    }
    for (const now of added) {
      if (renamedNew.has(now)) continue;
      out.changes.push({
        kind: 'field.added', path: now.pointer, field: now.label, after: describe(now), breaking: now.required,
        message: `field \`${now.label}\` added${now.required ? ' as required: events recorded before lack it' : ''}`,
      });
    }
    for (const [old, now] of pairs) {
      comparePair(old, now, out.changes);
      queue.push([old.key, now.key]);
    }
  }
  return out;
}

/**
 * `required` names that no property of their schema defines (the per-field flag covers the
 * others): still constraints on the data, an added one rejects every event lacking that key.
 */
function compareRequiredNames(old: RequiredList | undefined, now: RequiredList | undefined, parentLabel: string | undefined, changes: Change[]): void {
  const where = parentLabel === undefined ? 'the schema' : `\`${parentLabel}\``;
  const path = now?.pointer ?? old?.pointer ?? '';
  for (const name of now?.orphans ?? []) {
    if (old?.names.has(name)) continue;
    changes.push({
      kind: 'required.added', path, ...(parentLabel !== undefined ? { field: parentLabel } : {}), after: name, breaking: true,
      message: `${where} now requires \`${name}\` (no property defines it): events recorded without it no longer validate`,
    });
  }
  for (const name of old?.orphans ?? []) {
    if (now?.names.has(name)) continue;
    changes.push({ kind: 'required.removed', path, ...(parentLabel !== undefined ? { field: parentLabel } : {}), before: name, breaking: false, message: `${where} no longer requires \`${name}\`` });
  }
}

function describe(field: DiffField): Record<string, unknown> {
  return { name: field.name, type: field.type, kind: field.kind, ...(field.title !== undefined ? { title: field.title } : {}), required: field.required };
}

function comparePair(old: DiffField, now: DiffField, changes: Change[]): void {
  const at = (kind: Change['kind'], path: string, before: unknown, after: unknown, breaking: boolean, message: string): void => {
    changes.push({ kind, path, field: now.label, before, after, breaking, message });
  };
  const label = `\`${now.label}\``;
  if (old.title !== now.title) at('title.changed', joinPointer(now.pointer, 'title'), old.title, now.title, false, `title of ${label} changed from ${show(old.title)} to ${show(now.title)}`);
  const typeChanged = old.type !== now.type || kindFamily(old.kind) !== kindFamily(now.kind);
  if (typeChanged) {
    const widening = typesWiden(old.type, now.type) && (kindFamily(old.kind) === kindFamily(now.kind) || (now.kind === 'text' && CHOICE_KINDS.has(old.kind)));
    at('field.type_changed', joinPointer(now.pointer, 'type'), { type: old.type, kind: old.kind }, { type: now.type, kind: now.kind }, !widening,
      `type of ${label} changed from ${old.type || 'any'} (${old.kind}) to ${now.type || 'any'} (${now.kind})`);
  }
  if (old.format !== now.format) {
    at('field.format_changed', joinPointer(now.valuePointer, 'format'), old.format, now.format, now.format !== undefined,
      `format of ${label} changed from ${old.format ?? 'none'} to ${now.format ?? 'none'}`);
  }
  if (old.required !== now.required) {
    const parent = now.pointer.slice(0, now.pointer.lastIndexOf('/properties/'));
    if (now.required) at('required.added', joinPointer(parent, 'required'), false, true, true, `${label} is now required: events recorded without it no longer validate`);
    else at('required.removed', joinPointer(parent, 'required'), true, false, false, `${label} is no longer required`);
  }
  for (const [keyword, before] of old.annotations) {
    const after = now.annotations.get(keyword);
    if (after !== before) at('annotation.changed', joinPointer(now.pointer, keyword), parse(before), parse(after), false, `\`${keyword}\` of ${label} changed`);
  }
  for (const [keyword, after] of now.annotations) {
    if (!old.annotations.has(keyword)) at('annotation.changed', joinPointer(now.pointer, keyword), undefined, parse(after), false, `\`${keyword}\` of ${label} added`);
  }
  compareConstraints(old, now, changes);
  if (!typeChanged || (old.choices && now.choices)) compareChoices(old, now, changes);
  if (old.rest !== now.rest) {
    at('schema.changed', now.pointer, undefined, undefined, true, `other keywords of ${label} changed (not interpreted by the diff: review them)`);
  }
}

const parse = (text: string | undefined): unknown => (text === undefined || text === 'undefined' ? undefined : JSON.parse(text));

/** Whether every value of the old types is a value of the new ones (integer ⊂ number). */
function typesWiden(before: string, after: string): boolean {
  if (after === '') return true;
  if (before === '') return false;
  const next = new Set(after.split('|'));
  return before.split('|').every((t) => next.has(t) || (t === 'integer' && next.has('number')));
}

function compareConstraints(old: DiffField, now: DiffField, changes: Change[]): void {
  const keys = new Set([...old.constraints.keys(), ...now.constraints.keys()]);
  for (const keyword of keys) {
    const before = old.constraints.get(keyword);
    const after = now.constraints.get(keyword);
    // an absent keyword is its default (`minLength` 0, `uniqueItems` false...)
    if (canonicalJson(effectiveConstraint(keyword, before), now.pointer) === canonicalJson(effectiveConstraint(keyword, after), now.pointer)) continue;
    const direction = constraintDirection(keyword, before, after);
    const path = joinPointer(now.pointer, ...keyword.split('/'));
    changes.push({
      kind: `constraint.${direction}`, path, field: now.label, before, after, breaking: direction !== 'widened',
      message: `\`${keyword.replace('/', '.')}\` of \`${now.label}\` ${direction}: ${show(before)} → ${show(after)}`,
    });
  }
}

function compareChoices(old: DiffField, now: DiffField, changes: Change[]): void {
  const a = old.choices;
  const b = now.choices;
  if (!a && !b) return;
  const label = `\`${now.label}\``;
  if (!a || !b) {
    // a list of allowed values appeared on (or left) a field of the same kind
    const values = (set: ChoiceSet | undefined): unknown => (set ? [...set.values.values()].map((v) => v.value) : undefined);
    const narrowed = !a;
    changes.push({
      kind: narrowed ? 'constraint.narrowed' : 'constraint.widened', path: now.valuePointer, field: now.label,
      before: values(a), after: values(b), breaking: narrowed, message: `${label} ${narrowed ? 'now only accepts a list of values' : 'no longer limits its values to a list'}`,
    });
    return;
  }
  const known = a.unresolved.length === 0 && b.unresolved.length === 0;
  for (const list of a.lists) {
    if (!b.lists.includes(list)) changes.push({ kind: 'choice_list.removed', path: now.valuePointer, field: now.label, before: list, breaking: !known, message: `${label} no longer refers to choice list \`${list}\`` });
  }
  for (const list of b.lists) {
    if (!a.lists.includes(list)) changes.push({ kind: 'choice_list.added', path: now.valuePointer, field: now.label, after: list, breaking: false, message: `${label} now refers to choice list \`${list}\`` });
  }
  // with a list unresolved, the values lists offer are unknown: compare only the inline ones
  // (an inline value that is gone may still come from the unresolved list: breaking, to be safe)
  const compared = (choice: ChoiceValue): boolean => known || !choice.fromList;
  const unsure = known ? '' : ` (unless choice list ${b.unresolved.map((l) => `\`${l}\``).join(', ')} offers it)`;
  for (const [key, entry] of a.values) {
    if (!compared(entry)) continue;
    const next = b.values.get(key);
    if (!next) {
      changes.push({ kind: 'choice.removed', path: now.valuePointer, field: now.label, before: entry.value, breaking: true, message: `choice ${show(entry.value)} removed from ${label}${b.unresolved.length > 0 ? unsure : ''}` });
      continue;
    }
    if (entry.display !== next.display) {
      changes.push({ kind: 'choice.display_changed', path: now.valuePointer, field: now.label, before: entry.display, after: next.display, breaking: false, message: `display of choice ${show(entry.value)} of ${label} changed from ${show(entry.display)} to ${show(next.display)}` });
    }
    if (entry.description !== next.description) {
      changes.push({ kind: 'choice.description_changed', path: now.valuePointer, field: now.label, before: entry.description, after: next.description, breaking: false, message: `description of choice ${show(entry.value)} of ${label} changed` });
    }
    if (entry.other !== next.other) {
      changes.push({ kind: 'schema.changed', path: now.valuePointer, field: now.label, before: entry.value, after: next.value, breaking: true, message: `other keywords of choice ${show(entry.value)} of ${label} changed (not interpreted by the diff: review them)` });
    }
  }
  for (const [key, entry] of b.values) {
    if (compared(entry) && !a.values.has(key)) changes.push({ kind: 'choice.added', path: now.valuePointer, field: now.label, after: entry.value, breaking: false, message: `choice ${show(entry.value)} added to ${label}` });
  }
}
