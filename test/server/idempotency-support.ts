/** What the Idempotency-Key tests share: keyed requests and row counts. */
import { randomUUID } from 'node:crypto';
import type { TestServer } from '../helpers/server.js';

export const E = '/api/v1.0/activity/events';
export const ONE = '/api/v1.0/activity/event';
export const P = '/api/v1.0/activity/patrols';

/** The subject side's route families (issue 27): every unsafe route among them is keyed. */
export const SUBJECT_SIDE_FAMILIES = /^(subjects|sources|sourceproviders|subjectsources|messages|observations)\./;

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** A JSON request with an Idempotency-Key (and any other headers). */
export function keyedJson(method: string, body: unknown, token: string, key: string, headers: Record<string, string> = {}): RequestInit & { token: string } {
  return { method, token, headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) };
}

/** A multipart upload with an Idempotency-Key; each call frames it with a new boundary. */
export function keyedUpload(bytes: Buffer, filename: string, fields: Record<string, string>, token: string, key: string): RequestInit & { token: string } {
  const form = new FormData();
  form.append('filecontent.file', new Blob([bytes]), filename);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return { method: 'POST', token, headers: { 'Idempotency-Key': key }, body: form };
}

export const newKey = () => `entry-${randomUUID()}`;

export function knexOf(s: TestServer) {
  return s.server.runtime.database.knex;
}

export async function count(s: TestServer, table: string, where: Record<string, unknown> = {}): Promise<number> {
  const row = await knexOf(s)(table).where(where).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** Change-log rows of one record (the feed's `sync_changes`). */
export function changesOf(s: TestServer, kind: string, id: string): Promise<number> {
  return count(s, 'sync_changes', { kind, record_id: id });
}

export const replayed = (answer: Answer) => answer.headers.get('idempotent-replayed') === 'true';

/** Forgets a stored answer, as if the server had stopped between the commit and the answer. */
export async function forgetAnswer(s: TestServer, key: string): Promise<void> {
  const updated = await knexOf(s)('idempotency_keys').where({ key }).update({ state: 'committed', response_status: null, response_body: null, response_headers: null });
  if (updated !== 1) throw new Error(`expected one key row for ${key}, found ${updated}`);
}
