/**
 * `fieldops schema copy`: event types from one profile's server to another's, with the choice
 * lists their `choices.json` references name and their categories, carried first. Planned by
 * comparing meaning, not text (the schema through the semantic diff, the other fields by
 * value), so a rerun plans nothing and writes nothing. Choices only present on the target are
 * left as they are (other types may use them).
 */
import { forEachChoiceReference } from '../../schema/diff/choices.js';
import { isJsonObject } from '../../schema/json-pointer.js';
import { diffSchemaDocuments } from '../../schema/diff/index.js';
import { explainDiffLimit } from './limits.js';
import { failure } from '../../sync/errors.js';
import { CATEGORIES, CHOICES, EVENT_TYPES, unknownType, unwrap, type EventTypeRecord, type SchemaApi } from './api.js';
import { parseJsonBody } from '../../sync/http-errors.js';

/** The tracked fields besides the schema that a copy carries (value is the key). */
export const COPIED_FIELDS = ['display', 'icon', 'default_priority', 'is_active', 'category', 'default_state', 'geometry_type', 'is_collection', 'readonly'] as const;
/** At most this many types per copy (each costs a few requests on both servers). */
export const MAX_TYPES = 500;

export type Action = 'create' | 'update' | 'unchanged';

export interface ChoiceListPlan {
  name: string;
  action: Action;
  create: Array<Record<string, unknown>>;
  update: Array<{ id: string; value: string; body: Record<string, unknown> }>;
}

export interface TypePlan {
  value: string;
  action: Action;
  /** Fields that differ (`schema` when the documents differ as forms). */
  changed: string[];
  body: Record<string, unknown>;
  etag?: string;
}

export interface CopyPlan {
  categories: Array<{ value: string; action: Action; body: Record<string, unknown> }>;
  choiceLists: ChoiceListPlan[];
  types: TypePlan[];
}

/** Choice list names a document's `choices.json` references name, in order of appearance. */
export function referencedLists(document: unknown): string[] {
  const names: string[] = [];
  forEachChoiceReference(document, (field) => { if (!names.includes(field)) names.push(field); });
  return names;
}

async function sourceTypes(source: SchemaApi, values: readonly string[], all: boolean): Promise<EventTypeRecord[]> {
  if (all) {
    const list = await source.all(`${EVENT_TYPES}?include_schema=true&include_inactive=true`, 'the event types');
    if (list.length > MAX_TYPES) throw failure('usage', `${source.server} has ${list.length} event types; a copy carries at most ${MAX_TYPES}`, 'name the types to copy');
    return list;
  }
  const records: EventTypeRecord[] = [];
  for (const value of values) {
    const found = await source.current(value);
    if (!found) throw unknownType(value, source.server);
    records.push(found.record);
  }
  return records;
}

const choicesOf = (api: SchemaApi, name: string) => api.all(`${CHOICES}?field=${encodeURIComponent(name)}&include_inactive=true`, `the choices of "${name}"`);
const CHOICE_FIELDS = ['display', 'ordernum', 'is_active'] as const;

async function planList(source: SchemaApi, target: SchemaApi, name: string): Promise<ChoiceListPlan> {
  const theirs = new Map((await choicesOf(target, name)).map((c) => [String(c.value), c]));
  const plan: ChoiceListPlan = { name, action: 'unchanged', create: [], update: [] };
  for (const choice of await choicesOf(source, name)) {
    const existing = theirs.get(String(choice.value));
    if (!existing) {
      plan.create.push({ field: name, value: choice.value, display: choice.display, ...(choice.ordernum == null ? {} : { ordernum: choice.ordernum }), is_active: choice.is_active !== false });
      continue;
    }
    const body: Record<string, unknown> = {};
    for (const key of CHOICE_FIELDS) if ((choice[key] ?? null) !== (existing[key] ?? null) && choice[key] != null) body[key] = choice[key];
    if (Object.keys(body).length) plan.update.push({ id: String(existing.id), value: String(choice.value), body });
  }
  if (theirs.size === 0 && plan.create.length) plan.action = 'create';
  else if (plan.create.length || plan.update.length) plan.action = 'update';
  return plan;
}

function planType(record: EventTypeRecord, existing: { record: EventTypeRecord; etag?: string } | null): TypePlan {
  const body: Record<string, unknown> = { value: record.value };
  for (const key of COPIED_FIELDS) if (record[key] !== undefined) body[key] = record[key];
  if (record.schema != null) body.schema = record.schema;
  if (!existing) return { value: record.value, action: 'create', changed: [], body };
  const changed: string[] = COPIED_FIELDS.filter((key) => record[key] !== undefined && JSON.stringify(record[key] ?? null) !== JSON.stringify(existing.record[key] ?? null));
  const same = record.schema == null && existing.record.schema == null ? true : record.schema != null && existing.record.schema != null && explainDiffLimit(`"${record.value}" with the target's copy`, () => diffSchemaDocuments(existing.record.schema, record.schema)).identical;
  if (!same) changed.push('schema');
  const patch: Record<string, unknown> = {};
  for (const key of changed) patch[key] = key === 'schema' ? record.schema : body[key];
  return { value: record.value, action: changed.length ? 'update' : 'unchanged', changed, body: patch, ...(existing.etag ? { etag: existing.etag } : {}) };
}

export async function planCopy(source: SchemaApi, target: SchemaApi, values: readonly string[], all: boolean): Promise<CopyPlan> {
  const records = await sourceTypes(source, values, all);
  const plan: CopyPlan = { categories: [], choiceLists: [], types: [] };
  const listNames: string[] = [];
  for (const record of records) for (const name of referencedLists(record.schema)) if (!listNames.includes(name)) listNames.push(name);
  for (const name of listNames) plan.choiceLists.push(await planList(source, target, name));
  const wanted = [...new Set(records.map((r) => r.category).filter((c): c is string => typeof c === 'string' && c !== ''))];
  if (wanted.length) {
    const theirs = new Set((await target.all(CATEGORIES, 'the event categories')).map((c) => c.value));
    const ours = new Map((await source.all(CATEGORIES, 'the event categories')).map((c) => [c.value, c]));
    for (const value of wanted) {
      const body = { value, display: ours.get(value)?.display ?? value };
      plan.categories.push({ value, action: theirs.has(value) ? 'unchanged' : 'create', body });
    }
  }
  for (const record of records) plan.types.push(planType(record, await target.current(record.value)));
  return plan;
}

/** Applies a plan: categories, then choice lists, then types (a type's references exist before it). */
export async function applyCopy(target: SchemaApi, plan: CopyPlan, onStep?: (what: string) => void): Promise<void> {
  for (const category of plan.categories.filter((c) => c.action === 'create')) {
    onStep?.(`category ${category.value}`);
    await expect(target, await target.request('POST', CATEGORIES, category.body), [200, 201], `the category "${category.value}"`);
  }
  for (const list of plan.choiceLists) {
    onStep?.(`choice list ${list.name}`);
    for (const choice of list.create) await expect(target, await target.request('POST', CHOICES, choice), [200, 201], `the choice ${list.name}/${String(choice.value)}`);
    for (const change of list.update) await expect(target, await target.request('PATCH', `${CHOICES}/${encodeURIComponent(change.id)}`, change.body), [200], `the choice ${list.name}/${change.value}`);
  }
  for (const type of plan.types) {
    if (type.action === 'unchanged') continue;
    onStep?.(`event type ${type.value}`);
    const response = type.action === 'create'
      ? await target.request('POST', EVENT_TYPES, type.body)
      : await target.request('PATCH', `${EVENT_TYPES}/${encodeURIComponent(type.value)}`, type.body, type.etag ? { 'if-match': type.etag } : {});
    if (response.status !== 200 && response.status !== 201) throw target.writeFailure(response, type.value, type.action === 'create' ? 'creation' : 'update');
  }
}

async function expect(api: SchemaApi, response: Awaited<ReturnType<SchemaApi['request']>>, ok: number[], what: string): Promise<void> {
  if (ok.includes(response.status)) return;
  const detail = unwrap(parseJsonBody<any>(response, 'an error'))?.status?.detail ?? `HTTP ${response.status}`;
  if (response.status === 403) throw failure('permission', `${api.server} refused ${what}: ${detail}`, 'the target profile needs add_choice/change_choice, add_eventcategory and add_eventtype/change_eventtype');
  throw failure('server', `${api.server} refused ${what}: ${detail}`, 'nothing after it was written; fix it and run the copy again (it carries only what differs)');
}
