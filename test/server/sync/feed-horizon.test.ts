import { createRequire } from 'node:module';
import t from 'tap';
import { dialect } from '../../helpers/server.js';
import { takeHorizonTurn } from '../../helpers/horizon-turn.js';
import { type FeedFixture, createEvent, feedOnce as feed, pullAll, recount, startFeedServer } from './feed-support.js';

const require = createRequire(import.meta.url);

/** fieldops_sync_horizon_age_seconds from /metrics (the token is a superuser's). */
async function horizonAge(s: FeedFixture['s'], token: string): Promise<number> {
  const text = await (await s.request('/metrics', { token })).text();
  const line = /^fieldops_sync_horizon_age_seconds (\S+)$/m.exec(text);
  if (!line) throw new Error('fieldops_sync_horizon_age_seconds is missing from /metrics');
  return Number(line[1]);
}

/**
 * A transaction held open elsewhere. PostgreSQL: it holds the horizon, so a write that commits
 * meanwhile is not served yet and the page says `settling` (no checkpoint); once it ends, the
 * write is served and the page verifies. SQLite: a writer holding the write lock does not stop
 * the feed (reads never BEGIN IMMEDIATE); it answers what is committed.
 */
t.test(`sync feed: a held transaction (${dialect})`, async (t) => {
  // It holds the cluster's horizon on purpose: in turn with the files that need it to move.
  await takeHorizonTurn(t);
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s, token } = fx;
  await createEvent(s, token);
  const caught = await pullAll(s, token, ['ev:all']);
  t.ok(caught.last.checkpoint);

  if (dialect === 'postgres') {
    const held = await s.server.runtime.database.knex.transaction();
    try {
      await held.raw('SELECT pg_current_xact_id()');
      const late = (await createEvent(s, token)).body.id;
      const page = await feed(s, token, { cursor: caught.cursor, scopes: ['ev:all'] });
      t.equal(page.status, 200);
      t.same(page.body.changes, [], 'the write above the horizon is not served yet');
      t.equal(page.body.has_more, false);
      t.equal(page.body.settling, true, 'settling: a committed row waits above the horizon');
      t.equal(page.body.checkpoint, null, 'so no checkpoint');
      t.equal(page.body.cursor, caught.cursor, 'the cursor stays');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      t.ok((await horizonAge(s, token)) >= 1, 'the metric shows how long the horizon has been held');
      await held.commit();
      const next = await pullAll(s, token, ['ev:all'], { cursor: page.body.cursor, mirror: caught.mirror });
      t.ok(caught.mirror.has(`event:${late}`), 'served once the held transaction ended');
      t.same(next.last.checkpoint!.scopes.map(({ count, checksum }) => ({ count, checksum })), [recount(caught.mirror, 'ev:all')]);
    } finally {
      if (!held.isCompleted()) await held.rollback();
    }
    return;
  }

  const Database = require('better-sqlite3') as new (file: string) => { exec(sql: string): void; close(): void; pragma(source: string): unknown };
  const config = s.server.runtime.config.database;
  if (config.dialect !== 'sqlite') throw new Error('unexpected dialect');
  const other = new Database(config.filename);
  try {
    other.pragma('busy_timeout = 5000');
    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    const page = await feed(s, token, { cursor: caught.cursor, scopes: ['ev:all'] });
    t.equal(page.status, 200, 'the feed answers while another process holds the write lock');
    t.ok(Date.now() - started < 3000, 'without waiting for it');
    t.ok(page.body.checkpoint, 'what is committed verifies');
    t.equal(await horizonAge(s, token), 0, 'SQLite has no horizon to hold');
    other.exec('COMMIT');
  } finally {
    other.close();
  }
  const late = (await createEvent(s, token)).body.id;
  const next = await pullAll(s, token, ['ev:all'], { cursor: caught.cursor, mirror: caught.mirror });
  t.ok(caught.mirror.has(`event:${late}`));
  t.ok(next.last.checkpoint);
});
