/** What the merge tests share: offline-style requests (base revision, client id, key) and reads of history. */
import { randomUUID } from 'node:crypto';
import { send } from '../../helpers/catalog.js';
import type { TestServer } from '../../helpers/server.js';

export const E = '/api/v1.0/activity/events';
export const ONE = '/api/v1.0/activity/event';
export const P = '/api/v1.0/activity/patrols';
export const CONFLICTS = '/api/fieldops/v1/conflicts';
export const history = (kind: string, id: string) => `/api/fieldops/v1/records/${kind}/${id}/history`;

/** A laptop's update: based on `base`, from device `device`, under a fresh Idempotency-Key (or `key`). */
export function offline(method: string, body: unknown, token: string, base: number, device = 'laptop-1', key = `entry-${randomUUID()}`) {
  const init = send(method, body, token);
  return { ...init, headers: { ...(init.headers as Record<string, string>), 'Fieldops-Base-Revision': String(base), 'Fieldops-Client-Id': device, 'Idempotency-Key': key } };
}

export async function revisionOf(s: TestServer, token: string, kind: 'event' | 'patrol', id: string): Promise<number> {
  const answer = await s.json(history(kind, id), { token });
  if (answer.status !== 200) throw new Error(`history: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.revision as number;
}

export async function historyOf(s: TestServer, token: string, kind: 'event' | 'patrol', id: string): Promise<any> {
  return (await s.json(history(kind, id), { token })).body;
}

export async function setPolicy(s: TestServer, policy: string, tenant = 'default'): Promise<void> {
  await s.server.runtime.admin.setConflictPolicy(tenant, policy);
}

/** An event type whose details hold at most two of a, b, c (so two valid changes can merge into an invalid one). */
export async function createSightingType(s: TestServer, token: string): Promise<void> {
  const schema = {
    json: {
      $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, maxProperties: 2,
      properties: { a: { type: 'integer', title: 'A' }, b: { type: 'integer', title: 'B' }, c: { type: 'integer', title: 'C' } },
    },
    ui: { fields: { a: { type: 'NUMBER', inputType: 'NUMBER' }, b: { type: 'NUMBER', inputType: 'NUMBER' }, c: { type: 'NUMBER', inputType: 'NUMBER' } }, sections: {}, order: [], headers: {} },
  };
  const created = await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting', default_state: 'new', schema }, token));
  if (created.status !== 201) throw new Error(`event type: ${created.status} ${JSON.stringify(created.body)}`);
}

export async function createEvent(s: TestServer, token: string, fields: Record<string, unknown> = {}): Promise<{ id: string; revision: number }> {
  const created = await s.json(E, send('POST', { event_type: 'sighting', title: 'Gate', state: 'new', event_details: {}, ...fields }, token));
  if (created.status !== 201) throw new Error(`event: ${created.status} ${JSON.stringify(created.body)}`);
  return { id: created.body.id, revision: await revisionOf(s, token, 'event', created.body.id) };
}
