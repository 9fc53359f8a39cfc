/**
 * How each kind of outbox entry goes over the wire: the request that sends it, the request that
 * reads the server's version back (after a 409 or a 412), and how to tell whether the server's
 * version is the one the laptop recorded. Paths are the API's (CONTRACT §5b, §6, §10).
 */
import fs from 'node:fs';
import { BASE_REVISION_HEADER } from '../../protocol/push.js';
import { IDEMPOTENCY_KEY_HEADER, type TransportRequest } from '../http.js';
import type { OutboxEntry } from '../outbox/model.js';

const EVENTS = '/api/v1.0/activity/events';
const EVENT = '/api/v1.0/activity/event';
const PATROLS = '/api/v1.0/activity/patrols';
const CONFLICTS = '/api/fieldops/v1/conflicts';

/**
 * What a one-by-one update names as its base: the revision (`Fieldops-Base-Revision`, asks the
 * server for a merge), else, from a server that serves no revisions, the ETag pulled (If-Match,
 * events only: patrols carry no validator, rule 8).
 */
export interface SingleBase {
  revision: number | null;
  etag: string | null;
}
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** A queued file: the bytes were copied beside the mirror when it was attached. */
export interface FileBody {
  id: string;
  stored: string;
  filename: string;
  comment: string;
}

export interface ObservationBody {
  sourceType: string;
  providerKey: string;
  observation: Record<string, unknown>;
}

/**
 * The request for one entry (observations go in batches: see `observationBatch`). Each carries
 * the entry's id as its Idempotency-Key, so a repeat after a lost answer (the transport's retry,
 * or the next push) is answered the first answer instead of writing again or meeting itself as
 * a 409 or a 412.
 */
export function requestFor(server: string, entry: OutboxEntry, base: SingleBase = { revision: null, etag: null }): TransportRequest {
  const request = unkeyedRequestFor(server, entry, base);
  if (entry.kind === 'observation') return request;
  return { ...request, headers: { ...request.headers, [IDEMPOTENCY_KEY_HEADER]: entry.id } };
}

function unkeyedRequestFor(server: string, entry: OutboxEntry, base: SingleBase): TransportRequest {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (base.revision !== null) headers[BASE_REVISION_HEADER] = String(base.revision);
  else if (base.etag && entry.kind === 'event.update') headers['if-match'] = base.etag;
  const body = JSON.stringify(entry.body);
  switch (entry.kind) {
    case 'event.create':
      return { method: 'POST', url: `${server}${EVENTS}`, headers, body };
    case 'event.update':
      return { method: 'PATCH', url: `${server}${EVENTS}/${entry.target}`, headers, body };
    case 'patrol.create':
      return { method: 'POST', url: `${server}${PATROLS}`, headers, body };
    case 'patrol.update':
      return { method: 'PATCH', url: `${server}${PATROLS}/${entry.target}`, headers, body };
    case 'patrol.note':
      return { method: 'POST', url: `${server}${PATROLS}/${entry.target}/notes`, headers, body };
    case 'patrol.file':
      return fileRequest(`${server}${PATROLS}/${entry.target}/files`, entry.body as FileBody);
    case 'event.note':
      return { method: 'POST', url: `${server}${EVENT}/${entry.target}/notes`, headers, body };
    case 'event.file':
      return fileRequest(`${server}${EVENT}/${entry.target}/files`, entry.body as FileBody);
    case 'segment.update': {
      const { id, ...rest } = entry.body as { id: string };
      return { method: 'PATCH', url: `${server}${PATROLS}/segments/${id}`, headers, body: JSON.stringify(rest) };
    }
    case 'conflict.resolve':
      return { method: 'POST', url: `${server}${CONFLICTS}/${entry.target}/resolve`, headers, body: JSON.stringify({ choice: (entry.body as { choice: string }).choice }) };
    case 'observation':
      return observationBatch(server, [entry]);
    default:
      throw new Error(`outbox kind ${entry.kind} has no single route`);
  }
}

/** The server's current version of what the entry created or changed. */
export function readBackUrl(server: string, entry: OutboxEntry): string | null {
  switch (entry.kind) {
    case 'event.create':
    case 'event.update':
      return `${server}${EVENTS}/${entry.target}`;
    case 'patrol.create':
    case 'patrol.update':
      return `${server}${PATROLS}/${entry.target}`;
    case 'patrol.note':
      return `${server}${PATROLS}/${entry.target}/notes/${entry.id}`;
    case 'patrol.file':
      return `${server}${PATROLS}/${entry.target}/files/${entry.id}`;
    case 'event.note':
      return `${server}${EVENT}/${entry.target}/note/${entry.id}`;
    case 'event.file':
      return `${server}${EVENT}/${entry.target}/file/${entry.id}`;
    case 'observation':
      return null;
    default:
      return null;
  }
}

export function observationBatch(server: string, entries: OutboxEntry[]): TransportRequest {
  const first = entries[0]!.body as ObservationBody;
  return {
    method: 'POST',
    url: `${server}/api/v1.0/sensors/${encodeURIComponent(first.sourceType)}/${encodeURIComponent(first.providerKey)}/status`,
    headers: JSON_HEADERS,
    body: JSON.stringify(entries.map((e) => (e.body as ObservationBody).observation)),
    // The intake treats a repeat of a source's `recorded_at` as a duplicate (200).
    repeatable: true,
  };
}

function fileRequest(url: string, file: FileBody): TransportRequest {
  const boundary = `fieldops-${file.id}`;
  const part = (name: string, value: string) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const bytes = fs.readFileSync(file.stored);
  const head = Buffer.from(
    part('id', file.id) + part('comment', file.comment) +
      `--${boundary}\r\ncontent-disposition: form-data; name="filecontent.file"; filename="${file.filename.replace(/["\r\n]/g, '_')}"\r\ncontent-type: application/octet-stream\r\n\r\n`,
  );
  return {
    method: 'POST',
    url,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, accept: 'application/json' },
    body: Buffer.concat([head, bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  };
}

/**
 * Whether the server's record (after a 409 on a create) is the one the laptop recorded: every
 * field the laptop sent must be there with the same value (times compared as instants).
 */
export function sameAsRecorded(entry: OutboxEntry, theirs: unknown): boolean {
  const mine = entry.body as Record<string, unknown>;
  const server = unwrap(theirs);
  if (!isObject(server)) return false;
  switch (entry.kind) {
    case 'event.create':
      return ['event_type', 'priority', 'state', 'title'].every((k) => mine[k] === undefined || mine[k] === server[k]) &&
        (mine.time === undefined || sameInstant(mine.time, server.time)) &&
        (mine.location === undefined || sameLocation(mine.location, server.location)) &&
        deepEqual(mine.event_details ?? {}, server.event_details ?? {});
    case 'patrol.create': {
      if (!['title', 'objective', 'priority'].every((k) => mine[k] === undefined || mine[k] === server[k])) return false;
      const segments = Array.isArray(server.patrol_segments) ? (server.patrol_segments as Array<Record<string, unknown>>) : [];
      return ((mine.patrol_segments as Array<Record<string, unknown>> | undefined) ?? []).every((s) => {
        const found = segments.find((candidate) => candidate.id === s.id);
        return found !== undefined && (s.patrol_type === undefined || s.patrol_type === found.patrol_type);
      });
    }
    case 'patrol.note':
    case 'event.note':
      return server.text === mine.text;
    case 'patrol.file':
    case 'event.file':
      return true; // the id is ours and a file's bytes never change once stored
    default:
      return false;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** The users/sensors envelope `{data, status}` or a bare record. */
const unwrap = (v: unknown) => (isObject(v) && 'data' in v && 'status' in v ? v.data : v);

function sameInstant(a: unknown, b: unknown): boolean {
  return typeof a === 'string' && typeof b === 'string' && Date.parse(a) === Date.parse(b);
}

function sameLocation(a: unknown, b: unknown): boolean {
  if (a === null || b === null) return a === b;
  if (!isObject(a) || !isObject(b)) return false;
  return Math.abs(Number(a.latitude) - Number(b.latitude)) < 1e-9 && Math.abs(Number(a.longitude) - Number(b.longitude)) < 1e-9;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}
