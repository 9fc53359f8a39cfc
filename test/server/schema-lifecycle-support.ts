/** Shared set-up of test/server/schema-lifecycle*.test.ts (issue 28). */
import { send } from '../helpers/catalog.js';
import type { TestServer } from '../helpers/server.js';

export const V2 = '/api/v2.0/activity/eventtypes';

/** The detail with its schema, and its ETag. */
export async function detailOf(s: TestServer, token: string, key: string) {
  const answer = await s.json(`${V2}/${key}?include_schema=true`, { token });
  return { status: answer.status, body: answer.body, etag: answer.headers.get('etag')! };
}

export async function historyOf(s: TestServer, token: string, key: string) {
  return (await s.json(`${V2}/${key}/updates`, { token })).body as { count: number; results: Array<{ sequence: number; note?: string; time: string; updated_fields?: string[] }> };
}

/** A JSON request with extra headers (If-Match). */
export function sendWith(method: string, body: unknown, token: string, headers: Record<string, string> = {}) {
  const init = send(method, body, token);
  return { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } };
}
