/**
 * `fieldops sync --explain [id]`: per scope key this laptop was granted, how many records the
 * server counts now (GET …/sync/explain, one key per request) beside how many the laptop holds;
 * with an id, the server's account of why that record is in or out, and what the laptop holds.
 */
import { RECORD_KINDS, type RecordKind } from '../../protocol/sync.js';
import type { ExplainAnswer, FeedClient } from '../../sync/feed/client.js';
import { KIND_TABLE } from '../../sync/feed/rows.js';
import { readFeedState } from '../../sync/feed/state.js';
import { heldMembers } from '../../sync/feed/sums.js';
import { safeText } from '../../sync/safe-text.js';
import { connect, printJson, type CommandContext } from '../context.js';
import { UserFacingError } from '../errors.js';
import { formatTable } from '../output/table.js';
import { openOffline } from '../record/open.js';
import { feedClient } from './feed-steps.js';

const CONCURRENCY = 4;

async function serverCounts(client: FeedClient, keys: readonly string[]): Promise<Map<string, NonNullable<ExplainAnswer['scope']>>> {
  const out = new Map<string, NonNullable<ExplainAnswer['scope']>>();
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      const answer = await client.explain({ scope: key });
      if (answer.scope) out.set(key, answer.scope);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, keys.length) }, worker));
  return out;
}

export async function explainScopes(ctx: CommandContext, id: string | null): Promise<void> {
  if (id !== null && (id.length === 0 || id.length > 64 || /\s/.test(id))) throw new UserFacingError('--explain takes a record id (up to 64 characters)', 'for example `fieldops sync --explain 0b6c1f2e-5d3a-4f1e-9c2b-7a8d6e5f4c3b`', 2);
  const stores = await openOffline(ctx);
  try {
    const knex = stores.outbox.knex;
    const state = await readFeedState(knex);
    if (!state.keys) throw new UserFacingError('this mirror has not pulled through the change feed yet', 'run `fieldops pull` (or `fieldops sync --records`) once while online');
    let local: { kind: RecordKind; scopes: string[] } | null = null;
    if (id !== null) {
      for (const kind of RECORD_KINDS) {
        if (!(await knex(KIND_TABLE[kind]).where({ id }).first('id'))) continue;
        local = { kind, scopes: (await knex('record_scopes').where({ kind, id }).select('scope_key')).map((r: { scope_key: string }) => r.scope_key) };
        break;
      }
    }
    const connection = await connect(ctx);
    const client = feedClient(ctx, connection);
    try {
      if (id !== null) {
        // The laptop knows the kind of a record it holds; otherwise ask for each until one exists.
        let record: ExplainAnswer['record'] | undefined;
        for (const kind of local ? [local.kind] : RECORD_KINDS) {
          record = (await client.explain({ id, kind })).record;
          if (record && (record.version !== null || record.keys.length > 0)) break;
        }
        if (ctx.json) return printJson(ctx, { id, held: local, server: record ?? null });
        ctx.print(`${safeText(id)}: ${local ? `held here (${local.kind}) through ${local.scopes.join(', ') || 'no scope'}` : 'not held here'}`);
        if (!record || (record.version === null && record.keys.length === 0)) return ctx.print('the server knows no record with this id (or it is not yours to see)');
        ctx.print(`server: ${record.served ? 'served to you' : 'not served to you'}: ${safeText(record.why)}`);
        const rows = record.keys.map((k) => [k.key, k.granted ? 'yes' : 'no', state.keys!.includes(k.key) || state.granted.includes(k.key) ? 'yes' : 'no', safeText(k.reason ?? '')]);
        if (rows.length) ctx.print(formatTable(['key', 'you may see it', 'this laptop asks', 'why'], rows));
        return;
      }
      const keys = state.granted.length ? state.granted : state.keys.filter((k) => !k.includes('*'));
      const [server, held] = await Promise.all([serverCounts(client, keys), heldMembers(knex, keys)]);
      const scopes = keys.map((key) => ({ key, server: server.get(key)?.count ?? null, granted: server.get(key)?.granted ?? null, reason: server.get(key)?.reason ?? null, local: held.get(key)?.length ?? 0 }));
      if (ctx.json) return printJson(ctx, { scopes });
      const rows = scopes.map((s) => [s.key, s.server === null ? '-' : String(s.server), String(s.local), s.granted === false ? ctx.out.yellow(`not granted${s.reason ? `: ${safeText(s.reason)}` : ''}`) : s.server !== null && s.server !== s.local ? ctx.out.yellow('differs (`fieldops sync` catches up; `fieldops verify --repair`)') : '']);
      ctx.print(formatTable(['scope', 'server', 'this laptop', ''], rows, { right: [1, 2] }));
    } finally {
      await connection.close();
    }
  } finally {
    await stores.close();
  }
}
