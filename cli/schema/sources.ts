/**
 * Where a schema document comes from for `schema diff|show|draft`: the server's current
 * revision, one of its revisions (number) or its state at a date, the profile's mirror, or a
 * local file (a `{json, ui}` document, or an event-type export holding `schema`).
 */
import fs from 'node:fs';
import { UserFacingError } from '../errors.js';
import type { MirrorStore } from '../../sync/mirror/store.js';
import type { SchemaApi } from './api.js';

/** Local files are read whole: a schema document beyond this is refused before parsing. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

export type SourceSpec =
  | { kind: 'server' }
  | { kind: 'mirror' }
  | { kind: 'revision'; revision: number }
  | { kind: 'previous' }
  | { kind: 'date'; date: string }
  | { kind: 'file'; path: string };

export interface SchemaSource {
  document: unknown;
  /** What was read, for titles: `server (revision 4)`, `mirror`, `file x.json`... */
  label: string;
  revision?: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Parses `--from`/`--to`/`--as-of`; `allowed` limits the kinds (show takes revisions and dates only). */
export function parseSpec(raw: string, option: string, allowed: ReadonlyArray<SourceSpec['kind']>): SourceSpec {
  const spec = classify(raw.trim());
  if (!allowed.includes(spec.kind)) {
    throw new UserFacingError(`${option} ${JSON.stringify(raw)} is not one of: ${allowed.join(', ')}`, `give ${describeKinds(allowed)}`, 2);
  }
  return spec;
}

function classify(raw: string): SourceSpec {
  if (raw === 'server' || raw === 'current') return { kind: 'server' };
  if (raw === 'mirror') return { kind: 'mirror' };
  if (/^\d+$/.test(raw)) {
    const revision = Number(raw);
    if (!Number.isSafeInteger(revision) || revision < 1) throw new UserFacingError(`revision ${raw} is not a revision number`, 'revisions are numbered 1, 2, 3... as in the type\'s history', 2);
    return { kind: 'revision', revision };
  }
  if (DATE.test(raw)) {
    if (Number.isNaN(Date.parse(raw))) throw new UserFacingError(`${raw} is not a valid date`, 'give an ISO 8601 date, e.g. 2026-11-20 or 2026-11-20T10:00:00Z', 2);
    return { kind: 'date', date: new Date(raw).toISOString() };
  }
  return { kind: 'file', path: raw };
}

function describeKinds(kinds: ReadonlyArray<SourceSpec['kind']>): string {
  const words: Record<SourceSpec['kind'], string> = { server: '`server`', mirror: '`mirror`', revision: 'a revision number (1, 2, 3...)', previous: '', date: 'an ISO 8601 date', file: 'a file path' };
  return kinds.map((k) => words[k]).filter(Boolean).join(', ');
}

export const needsServer = (spec: SourceSpec): boolean => spec.kind !== 'mirror' && spec.kind !== 'file';

/** A `{json, ui}` document from a file: the document itself, or the `schema` of a type export. */
export function readSchemaFile(file: string): unknown {
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_FILE_BYTES) throw new UserFacingError(`${file} is ${size} bytes; a schema file may hold at most ${MAX_FILE_BYTES}`, 'give the {json, ui} document itself', 2);
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof UserFacingError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UserFacingError(`cannot read ${file} (${code})`, code === 'ENOENT' ? 'check the path; `server`, `mirror`, a revision number or a date are the other choices' : 'give a readable JSON file', 2, { cause: error });
  }
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UserFacingError(`${file} is not JSON: ${(error as Error).message}`, 'give a {json, ui} document or an event-type export holding `schema`', 2, { cause: error });
  }
  return documentOf(parsed, file);
}

function documentOf(parsed: any, file: string): unknown {
  const isDocument = (value: any) => value && typeof value === 'object' && !Array.isArray(value) && value.json && typeof value.json === 'object';
  if (isDocument(parsed)) return parsed;
  let schema = parsed?.schema;
  if (typeof schema === 'string') {
    try {
      schema = JSON.parse(schema);
    } catch {
      schema = undefined;
    }
  }
  if (isDocument(schema)) return schema;
  throw new UserFacingError(`${file} holds no {json, ui} schema document`, 'give the document itself, or an event-type export (as `fieldops types show <value> --json` prints) with its `schema`', 2);
}

/** The type's document in the mirror (null schema: an empty type). */
export async function mirrorDocument(store: MirrorStore, value: string): Promise<unknown> {
  const items = await store.itemsByValue('event_types', value);
  if (items.length === 0) {
    throw new UserFacingError(`no event type "${value}" in the mirror`, 'list them with `fieldops types list --kind event --all`; run `fieldops sync` if it was added recently');
  }
  return items[0]!.record.schema ?? null;
}

export interface SourceDeps {
  value: string;
  api: () => Promise<SchemaApi>;
  mirror: () => Promise<MirrorStore>;
}

export async function readSource(spec: SourceSpec, deps: SourceDeps): Promise<SchemaSource> {
  const { value } = deps;
  switch (spec.kind) {
    case 'file':
      return { document: readSchemaFile(spec.path), label: spec.path };
    case 'mirror':
      return { document: await mirrorDocument(await deps.mirror(), value), label: 'mirror' };
    case 'server': {
      const api = await deps.api();
      const { record } = await api.requireCurrent(value);
      const revision = await api.latestRevision(value);
      return { document: record.schema ?? null, label: `server (revision ${revision})`, revision };
    }
    case 'previous': {
      const api = await deps.api();
      const latest = await api.latestRevision(value);
      if (latest <= 1) throw new UserFacingError(`"${value}" has only one revision`, 'compare it with something else: --from mirror, --from FILE', 1);
      return readSource({ kind: 'revision', revision: latest - 1 }, deps);
    }
    case 'revision':
    case 'date': {
      const api = await deps.api();
      const at = spec.kind === 'revision' ? { revision: spec.revision } : { date: spec.date };
      const found = await api.asOf(value, at);
      if (!found) {
        const latest = await api.latestRevision(value);
        const what = spec.kind === 'revision' ? `revision ${spec.revision}` : spec.date;
        throw new UserFacingError(`"${value}" has no ${what}`, spec.kind === 'revision' ? `its revisions are 1 to ${latest}` : 'the type did not exist then; give a later date or a revision number', 1);
      }
      return { document: found.record.schema ?? null, label: `revision ${found.revision}${found.revisionTime ? ` (${found.revisionTime})` : ''}`, revision: found.revision };
    }
  }
}
