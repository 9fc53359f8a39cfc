/**
 * Choice records in the shapes the toolkit meets them: the API's `{field, value, display,
 * ordernum, is_active}` records, and Django fixture entries `{"model": "choices.choice",
 * "fields": {...}}` (as in EarthRanger's `event_data_model.json`). Grouped by list name they
 * feed v1 rendering and offline pre-rendering (a local mirror instead of the HTTP endpoint).
 */
import type { ChoiceEntry, ChoiceResolver } from './pre-render.js';
import { isJsonObject } from './json-pointer.js';

export interface ChoiceRecord {
  field: string;
  value: string;
  display: string;
  ordernum?: number | null;
  is_active?: boolean;
}

export type ChoicesByField = ReadonlyMap<string, readonly ChoiceEntry[]>;

/** Accepts API records and Django fixture entries; other entries (e.g. dynamic choices) are skipped. */
export function toChoiceRecords(input: unknown): ChoiceRecord[] {
  if (!Array.isArray(input)) return [];
  const records: ChoiceRecord[] = [];
  for (const entry of input) {
    if (!isJsonObject(entry)) continue;
    const fields = isJsonObject(entry.fields) ? entry.fields : entry;
    if (isJsonObject(entry.fields) && entry.model !== undefined && entry.model !== 'choices.choice') continue;
    const { field, value, display, ordernum, is_active } = fields;
    if (typeof field !== 'string' || typeof value !== 'string' || typeof display !== 'string') continue;
    const record: ChoiceRecord = { field, value, display };
    if (typeof ordernum === 'number' || ordernum === null) record.ordernum = ordernum;
    if (typeof is_active === 'boolean') record.is_active = is_active;
    records.push(record);
  }
  return records;
}

/** Active choices per list, ordered by `ordernum` (missing last) then `value` (CONTRACT §4). */
export function groupChoices(records: readonly ChoiceRecord[]): Map<string, ChoiceEntry[]> {
  const active = records.filter((r) => r.is_active !== false);
  const order = (r: ChoiceRecord): number => (typeof r.ordernum === 'number' ? r.ordernum : Number.POSITIVE_INFINITY);
  active.sort((a, b) => order(a) - order(b) || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  const byField = new Map<string, ChoiceEntry[]>();
  for (const r of active) {
    const list = byField.get(r.field) ?? [];
    if (!list.some((e) => e.value === r.value)) list.push({ value: r.value, display: r.display });
    byField.set(r.field, list);
  }
  return byField;
}

/** A resolver over local lists: an unknown list name cannot be resolved (null). */
export function createLocalChoiceResolver(choices: ChoicesByField): ChoiceResolver {
  return ({ field }) => {
    const list = choices.get(field);
    return list ? list.map((e) => ({ ...e })) : null;
  };
}
