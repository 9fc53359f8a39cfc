/**
 * Issue 28, on both databases (the race matters on PostgreSQL): batches creating events of two
 * types in opposite orders, many at once. Each transaction's usage counts are applied once, in key
 * order, before its commit (UsageTally), so none deadlocks (40P01) and every count is exact.
 */
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { type StoredEvent, V2, expectedSummary, openType } from './event-usage-expected.js';

const BATCH = '/api/v1.0/activity/events';
const ROUNDS = 10;

t.test(`opposite-order batches of two types, concurrently (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await openType(s, token, 'usage-a');
  await openType(s, token, 'usage-b');
  const stored: StoredEvent[] = [];
  const batch = async (types: string[], round: number) => {
    const events = types.map((type) => ({ type, details: { shared: 'x', round, [`only-${type}`]: true } }));
    const created = await s.json(BATCH, send('POST', events.map(({ type, details }) => ({ event_type: type, event_details: details })), token));
    if (created.status === 201) stored.push(...events);
    return created.status;
  };
  const statuses = await Promise.all(Array.from({ length: ROUNDS }, (_, round) => [batch(['usage-a', 'usage-b'], round), batch(['usage-b', 'usage-a'], round)]).flat());
  t.same(statuses, Array.from({ length: ROUNDS * 2 }, () => 201), 'every batch is created (no deadlock)');
  for (const type of ['usage-a', 'usage-b']) {
    const summary = (await s.json(`${V2}/${type}/usage`, { token })).body.data;
    t.equal(summary.events, ROUNDS * 2, `${type}: every event counted`);
    t.same(summary, expectedSummary(type, stored), `${type}: every count exact`);
  }
});
