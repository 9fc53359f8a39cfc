/**
 * Shared set-up of the feed tests (test/server/sync/feed*.test.ts): a real server, a tenant
 * with two categories of event types, and a laptop-like fold of the feed's pages (a change
 * older than what the mirror holds is ignored, as docs/sync.md tells clients to).
 */
import type { Test } from 'tap';
import { addTerm, recordTerm } from '../../../protocol/checksum.js';
import type { Change, FeedPage } from '../../../protocol/sync.js';
import { send } from '../../helpers/catalog.js';
import { sampleSchema } from '../../helpers/catalog.js';
import { type TestServer, type TestServerOptions, startTestServer } from '../../helpers/server.js';

export const E = '/api/v1.0/activity/events';
export const P = '/api/v1.0/activity/patrols';
export const FEED = '/api/fieldops/v1/sync/changes';

export interface FeedFixture {
  s: TestServer;
  token: string;
  tenantId: string;
}

/** A server whose tenant has categories `wildlife` and `security` with types `sighting` and `intrusion`, and patrol type `foot`. */
export async function startFeedServer(t: Test, options: TestServerOptions = {}): Promise<FeedFixture | null> {
  const s = await startTestServer(t, { ...options, env: { FIELDOPS_AUTH_CACHE_MS: '0', FIELDOPS_PATROL_SWEEP_SECONDS: '0', ...options.env } });
  if (!s) return null;
  const token = (await s.login()).access_token;
  for (const value of ['wildlife', 'security']) await ok(s.json('/api/v2.0/activity/eventcategories', send('POST', { value, display: value }, token)), 201);
  for (const [value, category] of [['sighting', 'wildlife'], ['intrusion', 'security']]) {
    await ok(s.json('/api/v2.0/activity/eventtypes', send('POST', { value, display: value, category, default_priority: 100, default_state: 'active', schema: sampleSchema() }, token)), 201);
  }
  await ok(s.json('/api/v1.0/activity/patrols/types', send('POST', { value: 'foot', display: 'Foot' }, token)), 201);
  const tenant = (await s.server.runtime.store.repos.tenants.findByName('default'))!;
  return { s, token, tenantId: tenant.id };
}

async function ok(pending: Promise<{ status: number; body: unknown }>, status: number) {
  const response = await pending;
  if (response.status !== status) throw new Error(`set-up answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response;
}

export function createEvent(s: TestServer, token: string, fields: Record<string, unknown> = {}) {
  return ok(s.json(E, send('POST', { event_type: 'sighting', event_details: {}, ...fields }, token)), 201) as Promise<{ status: number; body: { id: string } }>;
}

export function createPatrol(s: TestServer, token: string, fields: Record<string, unknown> = {}) {
  return ok(s.json(P, send('POST', { title: 'Boundary', patrol_segments: [{ patrol_type: 'foot' }], ...fields }, token)), 201) as Promise<{ status: number; body: { id: string } }>;
}

/** How long a test waits for PostgreSQL's horizon to pass its rows. */
const SETTLE_DEADLINE_MS = 120_000;

/** One feed request, as sent. */
export function feedOnce(s: TestServer, token: string, body: Record<string, unknown>) {
  return s.json<FeedPage & Record<string, any>>(FEED, send('POST', body, token));
}

/**
 * A feed request asked again (the same cursor: nothing is consumed) while the answer is
 * `settling`: on PostgreSQL the horizon is the cluster's, so another test's open transaction
 * holds this tenant's newest rows back for a while. Tests of settling itself use feedOnce.
 */
export async function feed(s: TestServer, token: string, body: Record<string, unknown>) {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const answer = await feedOnce(s, token, body);
    if (answer.status !== 200 || !answer.body.settling || Date.now() - started > SETTLE_DEADLINE_MS) return answer;
    await new Promise((resolve) => setTimeout(resolve, Math.min(500, 20 * (attempt + 1))));
  }
}

/** What a laptop holds: record key → its latest change. */
export type Mirror = Map<string, Change>;

export function fold(mirror: Mirror, changes: readonly Change[]): void {
  for (const change of changes) {
    const key = `${change.kind}:${change.id}`;
    const held = mirror.get(key);
    if (held && held.version > change.version) continue;
    if (change.op === 'put') mirror.set(key, change);
    else mirror.delete(key);
  }
}

/** Count and checksum of one key over a mirror, as the laptop recomputes them. */
export function recount(mirror: Mirror, key: string): { count: number; checksum: number } {
  let count = 0;
  let checksum = 0;
  for (const change of mirror.values()) {
    if (!change.scopes.includes(key)) continue;
    count++;
    checksum = addTerm(checksum, recordTerm(change.kind, change.id, change.version));
  }
  return { count, checksum };
}

/** Pages until a page has nothing more (asking again while settling); the last page and how many were read. */
export async function pullAll(s: TestServer, token: string, scopes: string[], options: { limit?: number; cursor?: string | null; mirror?: Mirror; between?: () => Promise<void>; previous?: string[] } = {}) {
  const mirror = options.mirror ?? new Map();
  let cursor = options.cursor ?? null;
  let pages = 0;
  const received: Change[] = [];
  const started = Date.now();
  for (;;) {
    // previous_scopes on the first request only: the cursors after it are made for the new set.
    const previous = pages === 0 && options.previous ? { previous_scopes: options.previous } : {};
    const page = await feed(s, token, { cursor, scopes, ...previous, ...(options.limit ? { limit: options.limit } : {}) });
    if (page.status !== 200) throw new Error(`feed answered ${page.status}: ${JSON.stringify(page.body)}`);
    pages++;
    fold(mirror, page.body.changes);
    received.push(...page.body.changes);
    cursor = page.body.cursor;
    if (options.limit) if (page.body.changes.length > options.limit) throw new Error('a page over its limit');
    if (!page.body.has_more && !page.body.settling) return { mirror, cursor, pages, last: page.body, received };
    // PostgreSQL's horizon is the whole cluster's: another test's open transaction makes pages
    // settle for a while. Wait, with a deadline, rather than count pages.
    if (Date.now() - started > SETTLE_DEADLINE_MS) throw new Error('the feed never ends');
    if (!page.body.has_more) await new Promise((resolve) => setTimeout(resolve, Math.min(500, 10 * pages)));
    await options.between?.();
  }
}
