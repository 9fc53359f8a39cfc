import type { Command } from 'commander';
import { printJson, type CommandContext } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import type { OfflineStores } from '../record/open.js';
import type { OutboxConflict } from '../../sync/outbox/conflicts.js';
import type { OutboxEntry } from '../../sync/outbox/model.js';
import { safeText } from '../../sync/safe-text.js';
import { clientAction, withCommonOptions } from './common.js';
import { registerOutboxTransferCommands } from './outbox-transfer.js';

type Options = { profile?: string; json?: boolean; all?: boolean; mine?: boolean; theirs?: boolean; field?: string };

export function registerOutboxCommands(program: Command, io: CliIo): void {
  const outbox = program.command('outbox').description('what was recorded offline: pending, sent, rejected (with the server\'s reason), in conflict');

  withCommonOptions(outbox.command('list', { isDefault: true }).description('list the outbox (sent entries only with --all)'))
    .option('--all', 'include sent and dropped entries')
    .action(
      withStores(io, async (ctx, stores, options) => {
        const entries = await stores.outbox.list(options.all ? {} : { status: ['pending', 'rejected', 'conflict'] });
        const counts = await stores.outbox.counts();
        const conflicts = await conflictsOf(stores, entries);
        if (ctx.json) {
          printJson(ctx, { counts, entries: entries.map((e) => ({ ...entryJson(e), conflicts: (conflicts.get(e.id) ?? []).map(conflictJson) })) });
          return;
        }
        const { formatTable } = await import('../output/table.js');
        if (entries.length > 0) {
          ctx.print(formatTable(['id', 'kind', 'status', 'by', 'recorded', 'source / reason'], entries.map((e) => [e.id, e.kind, colour(ctx, e.status), e.username ?? '', e.recordedAt.slice(0, 19), e.reason ?? e.source ?? describeEntry(e)])));
        }
        // Per entry, one line per field the server also changed: `state  base=active  mine=resolved  theirs=new  (open)`.
        for (const entry of entries) {
          const rows = conflicts.get(entry.id);
          if (!rows?.length) continue;
          ctx.print(`${entry.id} (${entry.kind}${entry.target ? ` of ${entry.target}` : ''}):`);
          for (const c of rows) ctx.print(`  ${conflictLine(c)}`);
        }
        if ([...conflicts.values()].some((rows) => rows.some((c) => c.status === 'open' && !c.queued))) {
          ctx.print('settle with `fieldops outbox resolve <id> [--field F] --mine|--theirs`; `fieldops push` sends the choice');
        }
        ctx.print(`${counts.pending} pending, ${counts.sent} sent, ${counts.rejected} rejected, ${counts.conflict} in conflict${counts.dropped ? `, ${counts.dropped} dropped` : ''}`);
      }),
    );

  withCommonOptions(outbox.command('show').description('one entry: what is sent and, for a conflict, the server\'s version').argument('<id>', 'the entry id (a unique prefix is enough)')).action(
    withStores(io, async (ctx, stores, _options, id) => {
      const entry = await findEntry(stores, id);
      const conflicts = ((await conflictsOf(stores, [entry])).get(entry.id) ?? []).map(conflictJson);
      if (ctx.json) printJson(ctx, { ...entryJson(entry), conflicts });
      else ctx.print(JSON.stringify({ ...entryJson(entry), mine: entry.body, conflicts }, null, 2));
    }),
  );

  withCommonOptions(outbox.command('drop').description('remove a pending, rejected or conflicted entry from the queue').argument('<id>', 'the entry id (a unique prefix is enough)')).action(
    withStores(io, async (ctx, stores, _options, id) => {
      const entry = await findEntry(stores, id);
      if (entry.status === 'sent') throw new UserFacingError(`${entry.id} was sent already`, 'change it on the server instead');
      // A conflict the server's merge kept was applied there (the rest of the entry stands): it is
      // settled, not dropped, so the server's conflict does not stay open for nobody.
      const { listConflicts } = await import('../../sync/outbox/conflicts.js');
      if ((await listConflicts(stores.outbox.knex, { entryId: entry.id, status: ['open'] })).length > 0) {
        throw new UserFacingError(`${entry.id} was applied on the server except for fields in conflict`, `settle them instead: fieldops outbox resolve ${entry.id} --theirs (keeps the server's values) or --mine`, 2);
      }
      await stores.outbox.settle([{ id: entry.id, status: 'dropped', reason: 'dropped by the user' }]);
      // A dropped file entry's staged copy goes too, unless another unsent entry uses the same bytes.
      const { releaseStagedFile } = await import('../../sync/outbox/attachments.js');
      await releaseStagedFile(stores.outbox.knex, entry, null, { dropped: true });
      if (ctx.json) printJson(ctx, { id: entry.id, status: 'dropped' });
      else ctx.print(`${entry.id} dropped`);
    }),
  );

  withCommonOptions(outbox.command('retry').description('queue a rejected entry again (after fixing what the server refused)').argument('<id>', 'the entry id (a unique prefix is enough)')).action(
    withStores(io, async (ctx, stores, _options, id) => {
      const entry = await findEntry(stores, id);
      if (entry.status !== 'rejected' && entry.status !== 'dropped') throw new UserFacingError(`${entry.id} is ${entry.status}`, entry.status === 'conflict' ? 'decide with `fieldops outbox resolve <id> --mine|--theirs`' : 'only rejected or dropped entries can be retried');
      await stores.outbox.requeue(entry.id);
      if (ctx.json) printJson(ctx, { id: entry.id, status: 'pending' });
      else ctx.print(`${entry.id} queued again; \`fieldops push\` sends it`);
    }),
  );

  registerOutboxTransferCommands(outbox, io);

  withCommonOptions(
    outbox
      .command('resolve')
      .description('settle a conflict: --mine keeps the laptop\'s value, --theirs the server\'s (per field; offline, `fieldops push` sends the choice)')
      .argument('<id>', 'the entry id (a unique prefix is enough)')
      .option('--field <field>', 'only this field (as `fieldops outbox` names it); default: every open field of the entry')
      .option('--mine', 'the laptop\'s value wins')
      .option('--theirs', 'the server\'s value stays'),
  ).action(
    withStores(io, async (ctx, stores, options, id) => {
      if (Boolean(options.mine) === Boolean(options.theirs)) throw new UserFacingError('say which value wins', 'pass exactly one of --mine or --theirs', 2);
      const entry = await findEntry(stores, id);
      const choice = options.mine ? 'mine' : 'theirs';
      const { listConflicts, queueResolution } = await import('../../sync/outbox/conflicts.js');
      if ((await listConflicts(stores.outbox.knex, { entryId: entry.id })).length > 0) {
        // Field conflicts the server kept: one `conflict.resolve` entry per open field, queued offline.
        const queued = await queueResolution(stores.outbox, entry, choice, options.field);
        const fields = (await listConflicts(stores.outbox.knex, { entryId: entry.id, status: ['open'] })).filter((c) => options.field === undefined || c.field === options.field).map((c) => c.field);
        if (ctx.json) printJson(ctx, { id: entry.id, choice, fields, queued });
        else if (queued.length === 0) ctx.print(`the resolution of ${fields.join(', ')} was queued already; \`fieldops push\` sends it`);
        else ctx.print(`${choice} queued for ${fields.join(', ')} of ${entry.id} (${queued.length} ${queued.length === 1 ? 'entry' : 'entries'}); \`fieldops push\` sends ${queued.length === 1 ? 'it' : 'them'}`);
        return;
      }
      if (options.field !== undefined) throw new UserFacingError(`${entry.id} has no field conflicts`, entry.status === 'conflict' ? 'it conflicts as a whole: resolve it without --field' : '`fieldops outbox` lists the conflicts', 2);
      const { resolveConflict } = await import('../../sync/outbox/resolve.js');
      await resolveConflict(stores.outbox, entry, options.mine ? 'mine' : 'theirs');
      const after = (await stores.outbox.get(entry.id))!;
      if (ctx.json) printJson(ctx, { id: entry.id, status: after.status });
      else ctx.print(options.mine ? `${entry.id} queued again as an update of the server's version; \`fieldops push\` sends it` : `${entry.id} dropped; the server's version stays`);
    }),
  );
}

function withStores(io: CliIo, work: (ctx: CommandContext, stores: OfflineStores, options: Options, id: string) => Promise<void>) {
  return clientAction<Options>(io, async (ctx, options, args) => {
    const { openOffline } = await import('../record/open.js');
    const stores = await openOffline(ctx);
    try {
      await work(ctx, stores, options, args[0] ?? '');
    } finally {
      await stores.close();
    }
  });
}

async function findEntry(stores: OfflineStores, id: string): Promise<OutboxEntry> {
  const found = await stores.outbox.findByPrefix(id);
  const exact = found.find((e) => e.id === id.toLowerCase());
  if (exact) return exact;
  if (found.length === 1 && id.length >= 4) return found[0]!;
  if (found.length === 0) throw new UserFacingError(`no outbox entry ${id}`, '`fieldops outbox --all` lists them');
  throw new UserFacingError(`${id} matches ${found.length} entries`, 'give more of the id');
}

const entryJson = (e: OutboxEntry) => ({
  id: e.id, seq: e.seq, kind: e.kind, target: e.target, depends_on: e.dependsOn, status: e.status, reason: e.reason, source: e.source,
  recorded_at: e.recordedAt, sent_at: e.sentAt, username: e.username, user_id: e.userId, server: e.server, body: e.body, theirs: e.theirs,
});

type ShownConflict = OutboxConflict & { queued: 'mine' | 'theirs' | null };

/** The conflict rows of `entries`, each with the resolution queued for it (a pending `conflict.resolve`), if any. */
async function conflictsOf(stores: OfflineStores, entries: OutboxEntry[]): Promise<Map<string, ShownConflict[]>> {
  const byEntry = new Map<string, ShownConflict[]>();
  if (entries.length === 0) return byEntry;
  const { listConflicts } = await import('../../sync/outbox/conflicts.js');
  const ids = entries.map((e) => e.id);
  const rows: OutboxConflict[] = [];
  for (let i = 0; i < ids.length; i += 300) rows.push(...(await listConflicts(stores.outbox.knex, { entryIds: ids.slice(i, i + 300) })));
  if (rows.length === 0) return byEntry;
  const queued = new Map<string, 'mine' | 'theirs'>();
  for (const resolution of await stores.outbox.list({ status: ['pending'] })) {
    if (resolution.kind !== 'conflict.resolve' || !resolution.target) continue;
    const choice = (resolution.body as { choice?: unknown }).choice;
    if (choice === 'mine' || choice === 'theirs') queued.set(resolution.target, choice);
  }
  for (const row of rows) {
    const list = byEntry.get(row.entryId) ?? [];
    list.push({ ...row, queued: row.status === 'open' ? (queued.get(row.id) ?? null) : null });
    byEntry.set(row.entryId, list);
  }
  return byEntry;
}

const POLICY_WORDS: Record<string, string> = { server_wins: 'server wins', last_writer_wins: 'last writer wins', hold: 'held' };

/** `state  base=active  mine=resolved  theirs=new  (open)` */
function conflictLine(c: ShownConflict): string {
  const state = c.status === 'open'
    ? c.queued ? `open; --${c.queued} queued, sent by the next push` : 'open'
    : c.settledBy === 'policy' ? `settled: ${POLICY_WORDS[c.policy ?? ''] ?? c.policy ?? 'by policy'}` : `settled: ${c.settledBy ?? 'yes'}`;
  return `${safeText(c.field)}  base=${shown(c.base)}  mine=${shown(c.mine)}  theirs=${shown(c.theirs)}  (${state})`;
}

/** A value on one line: a plain word as it is, anything else as JSON, long ones cut. */
function shown(value: unknown): string {
  const text = typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value ?? null);
  return safeText(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}

const conflictJson = (c: ShownConflict) => ({
  id: c.id, field: c.field, base: c.base, mine: c.mine, theirs: c.theirs, status: c.status, policy: c.policy, settled_by: c.settledBy, queued: c.queued,
});

/** What a row without a source or reason is, when its kind alone does not say. */
function describeEntry(e: OutboxEntry): string {
  const body = e.body as Record<string, unknown> | null;
  if (e.kind === 'conflict.resolve') return safeText(`--${body?.choice} for ${body?.field ?? 'a field'} of ${body?.entry ?? 'an entry'}`);
  if (e.kind === 'event.file' || e.kind === 'patrol.file') return safeText(`${body?.filename ?? 'a file'} for ${e.target ?? ''}`);
  return '';
}

function colour(ctx: CommandContext, status: string): string {
  if (status === 'rejected') return ctx.out.red(status);
  if (status === 'conflict') return ctx.out.yellow(status);
  if (status === 'sent') return ctx.out.green(status);
  return status;
}
