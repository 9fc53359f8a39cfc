/**
 * The interactive event form as a pure state machine (the Ink view only renders it): one field at
 * a time, in schema order. Text, numbers, dates and JSON are typed (a collection field takes
 * JSON; a location `LAT,LON`), a choice is picked with the arrow keys, several choices are
 * toggled with the space bar. Enter accepts; an optional field may be left empty.
 */
import { convertCell } from './event-rows.js';
import type { FieldSpec } from './event-type.js';

export interface FormState {
  fields: FieldSpec[];
  index: number;
  values: Record<string, unknown>;
  text: string;
  highlight: number;
  picked: string[];
  error: string | null;
  done: boolean;
  cancelled: boolean;
}

export type FormKey = { input: string; upArrow?: boolean; downArrow?: boolean; return?: boolean; backspace?: boolean; delete?: boolean; escape?: boolean; ctrl?: boolean };

export const initialForm = (fields: FieldSpec[]): FormState => advance({ fields, index: 0, values: {}, text: '', highlight: 0, picked: [], error: null, done: false, cancelled: false }, 0);

/** Choices offered for the current field; an optional single choice starts with "(none)". */
export function optionsOf(state: FormState): Array<{ value: string | null; display: string }> {
  const field = state.fields[state.index];
  if (!field) return [];
  const options = field.options.map((o) => ({ value: o.value as string | null, display: o.display }));
  return field.kind === 'choice' && !field.required ? [{ value: null, display: '(none)' }, ...options] : options;
}

function advance(state: FormState, index: number): FormState {
  if (index >= state.fields.length) return { ...state, index, done: true, error: null };
  return { ...state, index, text: '', highlight: 0, picked: [], error: null };
}

export function formReducer(state: FormState, key: FormKey): FormState {
  if (state.done || state.cancelled) return state;
  if ((key.ctrl && key.input === 'c') || key.escape) return { ...state, cancelled: true };
  const field = state.fields[state.index]!;
  if (field.kind === 'choice' || field.kind === 'multichoice') {
    const options = optionsOf(state);
    if (key.upArrow) return { ...state, highlight: (state.highlight - 1 + options.length) % options.length };
    if (key.downArrow) return { ...state, highlight: (state.highlight + 1) % options.length };
    if (field.kind === 'multichoice' && key.input === ' ') {
      const value = options[state.highlight]!.value!;
      return { ...state, picked: state.picked.includes(value) ? state.picked.filter((v) => v !== value) : [...state.picked, value] };
    }
    if (!key.return) return state;
    if (field.kind === 'multichoice') {
      if (state.picked.length === 0 && field.required) return { ...state, error: 'pick at least one (space bar)' };
      const values = state.picked.length ? { ...state.values, [field.name]: options.filter((o) => state.picked.includes(o.value!)).map((o) => o.value) } : state.values;
      return advance({ ...state, values }, state.index + 1);
    }
    const chosen = options[state.highlight]?.value ?? null;
    return advance({ ...state, values: chosen === null ? state.values : { ...state.values, [field.name]: chosen } }, state.index + 1);
  }
  if (key.backspace || key.delete) return { ...state, text: state.text.slice(0, -1), error: null };
  if (!key.return) return key.input && !key.ctrl ? { ...state, text: state.text + key.input, error: null } : state;
  const raw = state.text.trim();
  if (raw === '') return field.required ? { ...state, error: `${field.title} is required` } : advance(state, state.index + 1);
  const converted = field.kind === 'location' ? locationOf(raw) : convertCell(field, raw);
  if ('error' in converted) return { ...state, error: [converted.error, ...converted.hints].join(' — ') };
  return advance({ ...state, values: { ...state.values, [field.name]: converted.value } }, state.index + 1);
}

function locationOf(raw: string): { value: unknown } | { error: string; hints: string[] } {
  const parts = raw.split(',').map((p) => Number(p.trim()));
  if (parts.length === 2 && parts.every(Number.isFinite)) return { value: { latitude: parts[0], longitude: parts[1] } };
  return { error: `"${raw}" is not LAT,LON`, hints: ['for example -1.29,36.82'] };
}
