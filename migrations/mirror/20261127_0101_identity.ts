import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * One identity per entry (issue 26 §7).
 *
 * - `mirror_identity` (key/value): `client_id`, a UUID made once per mirror (sent as
 *   `Fieldops-Client-Id` on every request); `server`, `user_id` and `username` of the user whose
 *   pulled records the mirror holds (and who records entries now); `signed_out` while that user
 *   is logged out.
 * - `outbox` gains `user_id`, `username` and `server`: who recorded the entry, where it goes.
 *   Existing entries are given what the mirror knew: the feed's identity (`"<server>
 *   <username>"`), else the conditional-GET sync's `mirror_meta`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mirror_identity', (t) => {
    t.string('key', 40).primary();
    t.text('value').notNullable();
  });
  await knex('mirror_identity').insert({ key: 'client_id', value: randomUUID() });
  await knex.schema.alterTable('outbox', (t) => {
    t.string('user_id', 64).nullable();
    t.string('username', 150).nullable();
    t.text('server').nullable();
  });
  const known = await previousIdentity(knex);
  if (known) await knex('outbox').update({ server: known.server, username: known.username });
}

async function previousIdentity(knex: Knex): Promise<{ server: string; username: string | null } | null> {
  const feed = (await knex.schema.hasTable('feed_state')) ? await knex('feed_state').where({ key: 'identity' }).first('value') : undefined;
  if (typeof feed?.value === 'string') {
    // `${server} ${username}`: a server URL has no space; an empty username means a token session.
    const space = feed.value.indexOf(' ');
    const server = space < 0 ? feed.value : feed.value.slice(0, space);
    const username = space < 0 ? '' : feed.value.slice(space + 1);
    if (server) return { server, username: username || null };
  }
  const rows: Array<{ key: string; value: string }> = await knex('mirror_meta').whereIn('key', ['server', 'username']).select('key', 'value');
  const meta = new Map(rows.map((r) => [r.key, r.value]));
  const server = meta.get('server');
  return server ? { server, username: meta.get('username') || null } : null;
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox', (t) => {
    t.dropColumn('server');
    t.dropColumn('username');
    t.dropColumn('user_id');
  });
  await knex.schema.dropTableIfExists('mirror_identity');
}
