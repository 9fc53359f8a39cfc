import { type FieldErrors, InputError } from '../errors.js';
import { isUuid } from '../ids.js';
import { CONTROL } from '../sensors/observation-input.js';
import { parseIsoWithOffset } from '../time-input.js';
import type { SourcePatch, SubjectPatch } from './model.js';

/**
 * Write bodies of the subject side, read after the route's JSON Schema checked their shape:
 * what the schema cannot say (control characters, times with offsets, ranges) is checked here,
 * every problem reported at once (400). Read-only fields clients echo back are ignored.
 */

type Body = Record<string, unknown>;

class Issues {
  readonly fields: FieldErrors = {};
  add(field: string, code: string, message: string, hints: string[] = []): void {
    (this.fields[field] ??= []).push({ code, message, hints });
  }
  throwIfAny(what: string): void {
    if (Object.keys(this.fields).length > 0) throw new InputError(`Invalid ${what}.`, this.fields);
  }
}

const asBody = (raw: unknown): Body => {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw InputError.field('body', 'invalid_type', 'Expected a JSON object.');
  return raw as Body;
};

function text(body: Body, field: string, max: number, issues: Issues, options: { required?: boolean; nullable?: boolean } = {}): string | null | undefined {
  const value = body[field];
  if (value === undefined || (value === null && !options.required)) {
    if (options.required) issues.add(field, 'required', `${field} is required.`);
    return value === null && options.nullable ? null : undefined;
  }
  if (typeof value !== 'string') issues.add(field, 'invalid_type', `${field} must be a string.`);
  else if (options.required && value.trim() === '') issues.add(field, 'blank', `${field} may not be blank.`);
  else if (CONTROL.test(value)) issues.add(field, 'invalid', `${field} may not contain control characters.`);
  else if (value.length > max) issues.add(field, 'max_length', `${field} is longer than ${max} characters.`);
  else return value;
  return undefined;
}

function object(body: Body, field: string, issues: Issues): Record<string, unknown> | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    issues.add(field, 'invalid_type', `${field} must be an object.`);
    return undefined;
  }
  return value as Record<string, unknown>;
}

/** A subject's fields in a POST (`create`) or PATCH body. */
export function readSubjectBody(raw: unknown, create: boolean): SubjectPatch & { groups?: string[] } {
  const body = asBody(raw);
  const issues = new Issues();
  const patch: SubjectPatch & { groups?: string[] } = {};
  const name = text(body, 'name', 100, issues, { required: create });
  if (typeof name === 'string') patch.name = name;
  const type = text(body, 'subject_type', 50, issues);
  if (typeof type === 'string') patch.subjectType = type;
  const subtype = text(body, 'subject_subtype', 50, issues);
  if (typeof subtype === 'string') patch.subjectSubtype = subtype;
  if (body.is_active !== undefined && body.is_active !== null) {
    if (typeof body.is_active !== 'boolean') issues.add('is_active', 'invalid_type', 'is_active must be a boolean.');
    else patch.isActive = body.is_active;
  }
  const additional = object(body, 'additional', issues);
  if (additional) patch.additional = additional;
  for (const [field, key, max] of [['common_name', 'commonName', 100], ['sex', 'sex', 20], ['region', 'region', 100], ['country', 'country', 100], ['hex', 'hex', 10]] as const) {
    const value = text(body, field, max, issues, { nullable: true });
    if (value !== undefined) patch[key] = value;
  }
  if (body.subject_groups !== undefined && body.subject_groups !== null) {
    const groups = body.subject_groups;
    if (!Array.isArray(groups) || groups.length > 20) issues.add('subject_groups', 'invalid', 'subject_groups is a list of at most 20 group names.');
    else {
      patch.groups = [];
      for (const group of groups) {
        if (typeof group !== 'string' || group.trim() === '' || group.length > 100 || CONTROL.test(group)) issues.add('subject_groups', 'invalid', 'A group name is a non-blank string of at most 100 characters.');
        else if (!patch.groups.includes(group)) patch.groups.push(group);
      }
    }
  }
  issues.throwIfAny('subject');
  return patch;
}

/** `[{id}, ...]` (or bare ids): the subjects of a group membership edit. */
export function readSubjectRefs(raw: unknown): string[] {
  const items = Array.isArray(raw) ? raw : raw !== null && typeof raw === 'object' ? [raw] : null;
  if (!items || items.length === 0 || items.length > 1000) throw InputError.field('subjects', 'invalid', 'Send a list of 1 to 1000 subjects as [{"id": "<uuid>"}].');
  const ids: string[] = [];
  for (const item of items) {
    const id = typeof item === 'string' ? item : item !== null && typeof item === 'object' ? (item as Body).id : undefined;
    if (typeof id !== 'string' || !isUuid(id)) throw InputError.field('subjects', 'invalid', 'Each subject is {"id": "<uuid>"}.');
    if (!ids.includes(id.toLowerCase())) ids.push(id.toLowerCase());
  }
  return ids;
}

export interface SourceInput extends SourcePatch {
  provider?: string;
  subject?: string;
}

/** A source's fields in a POST (`create`: manufacturer_id required) or PATCH body. */
export function readSourceBody(raw: unknown, create: boolean): SourceInput {
  const body = asBody(raw);
  const issues = new Issues();
  const out: SourceInput = {};
  const manufacturerId = text(body, 'manufacturer_id', 200, issues, { required: create });
  if (typeof manufacturerId === 'string') out.manufacturerId = manufacturerId;
  const sourceType = text(body, 'source_type', 50, issues);
  if (typeof sourceType === 'string') out.sourceType = sourceType;
  const modelName = text(body, 'model_name', 100, issues);
  if (typeof modelName === 'string') out.modelName = modelName;
  const additional = object(body, 'additional', issues);
  if (additional) out.additional = additional;
  const provider = text(body, 'provider', 100, issues);
  if (typeof provider === 'string') out.provider = provider;
  issues.throwIfAny('source');
  return out;
}

export function readProviderBody(raw: unknown, create: boolean): { key?: string; displayName?: string; additional?: Record<string, unknown> } {
  const body = asBody(raw);
  const issues = new Issues();
  const key = text(body, 'provider_key', 100, issues, { required: create });
  const displayName = text(body, 'display_name', 100, issues);
  const additional = object(body, 'additional', issues);
  issues.throwIfAny('source provider');
  return { ...(typeof key === 'string' ? { key } : {}), ...(typeof displayName === 'string' ? { displayName } : {}), ...(additional ? { additional } : {}) };
}

export interface AssignmentInput {
  subject?: string;
  source?: string;
  rangeLower?: number;
  rangeUpper?: number | null;
  additional?: Record<string, unknown>;
}

/** `{subject, source, assigned_range: {lower, upper}, additional}`; upper null or absent: open ended. */
export function readAssignmentBody(raw: unknown, create: boolean): AssignmentInput {
  const body = asBody(raw);
  const issues = new Issues();
  const out: AssignmentInput = {};
  for (const field of ['subject', 'source'] as const) {
    const value = body[field];
    if (value === undefined || value === null) {
      if (create) issues.add(field, 'required', `${field} is required.`);
    } else if (typeof value !== 'string' || value.length > 200 || CONTROL.test(value)) issues.add(field, 'invalid', `${field} is an id.`);
    else out[field] = value;
  }
  const range = body.assigned_range;
  if (range !== undefined && range !== null) {
    if (typeof range !== 'object' || Array.isArray(range)) issues.add('assigned_range', 'invalid_type', 'assigned_range is {lower, upper}.');
    else {
      const time = (name: 'lower' | 'upper'): number | null | undefined => {
        const value = (range as Body)[name];
        if (value === undefined || value === null) return value as undefined | null;
        const millis = typeof value === 'string' ? parseIsoWithOffset(value) : null;
        if (millis === null) issues.add('assigned_range', 'invalid_datetime', `assigned_range.${name} is not an ISO 8601 date-time with an offset.`, ['For example 2026-11-20T10:00:00+00:00.']);
        return millis ?? undefined;
      };
      const lower = time('lower');
      const upper = time('upper');
      if (typeof lower === 'number') out.rangeLower = lower;
      if (upper !== undefined) out.rangeUpper = upper;
    }
  }
  const additional = object(body, 'additional', issues);
  if (additional) out.additional = additional;
  issues.throwIfAny('assignment');
  return out;
}

/** Checks lower < upper once both are known. */
export function checkRange(lower: number, upper: number | null): void {
  if (upper !== null && upper <= lower) throw InputError.field('assigned_range', 'invalid_range', 'assigned_range.upper must be after assigned_range.lower.');
}
