/**
 * An event type as the laptop validates against it offline: its schema pre-rendered with the
 * mirrored choices (root kept closed, exactly as the server validates `event_details`), a
 * compiled validator from the schema toolkit, and the fields described for the CSV reader and
 * the interactive form. No request is made.
 */
import {
  createEventDetailsValidatorCache, createLocalChoiceResolver, groupChoices, preRender, toChoiceRecords,
  type EventDetailsValidator,
} from '../../schema/index.js';
import type { MirrorItem, MirrorStore } from '../../sync/mirror/store.js';
import { findRecordableType } from '../offline/types.js';

export type FieldKind = 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'multichoice' | 'date' | 'location' | 'json';

export interface FieldSpec {
  name: string;
  title: string;
  kind: FieldKind;
  required: boolean;
  options: Array<{ value: string; display: string }>;
}

export interface EventTypeForRecording {
  value: string;
  item: MirrorItem;
  defaultPriority: number;
  defaultState: string;
  fields: FieldSpec[];
  validate: EventDetailsValidator;
}

const validators = createEventDetailsValidatorCache({ maxEntries: 50 });

export async function eventTypeForRecording(store: MirrorStore, value: string): Promise<EventTypeForRecording> {
  const { item } = await findRecordableType(store, value, 'event');
  const schema = item.record.schema as { json?: unknown } | undefined;
  const hasSchema = schema && typeof schema === 'object' && schema.json && Object.keys(schema.json as object).length > 0;
  let json: Record<string, unknown> = {};
  if (hasSchema) {
    const choices = groupChoices(toChoiceRecords((await store.items('choices')).map((c) => c.record)));
    const rendered = await preRender(schema, createLocalChoiceResolver(choices), { keepRootClosure: true });
    json = (rendered.document as { json: Record<string, unknown> }).json;
  }
  return {
    value: item.value,
    item,
    defaultPriority: Number(item.record.default_priority ?? 0),
    defaultState: String(item.record.default_state ?? 'new'),
    fields: describeFields(json),
    validate: hasSchema ? validators.build(json) : () => ({ valid: true, issues: [] }),
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function describeFields(json: Json): FieldSpec[] {
  const properties = isObject(json.properties) ? json.properties : {};
  const required = new Set(Array.isArray(json.required) ? (json.required as string[]) : []);
  return Object.entries(properties).map(([name, raw]) => {
    const p = isObject(raw) ? raw : {};
    const options = optionsOf(p);
    const itemOptions = isObject(p.items) ? optionsOf(p.items) : [];
    let kind: FieldKind = 'json';
    if (options.length > 0 || p.enum) kind = 'choice';
    else if (p.type === 'array' && (itemOptions.length > 0 || (isObject(p.items) && p.items.enum))) kind = 'multichoice';
    else if (p.type === 'number') kind = 'number';
    else if (p.type === 'integer') kind = 'integer';
    else if (p.type === 'boolean') kind = 'boolean';
    else if (p.type === 'string' && (p.format === 'date-time' || p.format === 'date')) kind = 'date';
    else if (p.type === 'string') kind = 'text';
    else if (p.type === 'object' && isObject(p.properties) && 'latitude' in p.properties && 'longitude' in p.properties) kind = 'location';
    return { name, title: typeof p.title === 'string' ? p.title : name, kind, required: required.has(name), options: options.length ? options : itemOptions };
  });
}

/** Choices of a pre-rendered property: `anyOf`/`oneOf` of `{const, title}`, or `enum` (+ `x-enumExtra`). */
function optionsOf(p: Json): Array<{ value: string; display: string }> {
  const list = Array.isArray(p.anyOf) ? p.anyOf : Array.isArray(p.oneOf) ? p.oneOf : null;
  if (list) {
    return list.filter((o): o is Json => isObject(o) && 'const' in o).map((o) => ({ value: String(o.const), display: typeof o.title === 'string' ? o.title : String(o.const) }));
  }
  if (Array.isArray(p.enum)) {
    const extra = isObject(p['x-enumExtra']) ? p['x-enumExtra'] : {};
    return p.enum.map((v) => ({ value: String(v), display: String((extra[String(v)] as Json | undefined)?.display ?? v) }));
  }
  return [];
}
