import type { Command } from 'commander';
import { printJson, type CommandContext } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import type { OfflineStores } from '../record/open.js';
import type { OutboxEntry } from '../../sync/outbox/model.js';
import { clientAction, withCommonOptions } from './common.js';
import { registerOutboxTransferCommands } from './outbox-transfer.js';

type Options = { profile?: string; json?: boolean; all?: boolean; mine?: boolean; theirs?: boolean };

export function registerOutboxCommands(program: Command, io: CliIo): void {
  const outbox = program.command('outbox').description('what was recorded offline: pending, sent, rejected (with the server\'s reason), in conflict');

  withCommonOptions(outbox.command('list', { isDefault: true }).description('list the outbox (sent entries only with --all)'))
    .option('--all', 'include sent and dropped entries')
    .action(
      withStores(io, async (ctx, stores, options) => {
        const entries = await stores.outbox.list(options.all ? {} : { status: ['pending', 'rejected', 'conflict'] });
        const counts = await stores.outbox.counts();
        if (ctx.json) {
          printJson(ctx, { counts, entries: entries.map(entryJson) });
          return;
        }
        const { formatTable } = await import('../output/table.js');
        if (entries.length > 0) {
          ctx.print(formatTable(['id', 'kind', 'status', 'by', 'recorded', 'source / reason'], entries.map((e) => [e.id, e.kind, colour(ctx, e.status), e.username ?? '', e.recordedAt.slice(0, 19), e.reason ?? e.source ?? ''])));
        }
        ctx.print(`${counts.pending} pending, ${counts.sent} sent, ${counts.rejected} rejected, ${counts.conflict} in conflict${counts.dropped ? `, ${counts.dropped} dropped` : ''}`);
      }),
    );

  withCommonOptions(outbox.command('show').description('one entry: what is sent and, for a conflict, the server\'s version').argument('<id>', 'the entry id (a unique prefix is enough)')).action(
    withStores(io, async (ctx, stores, _options, id) => {
      const entry = await findEntry(stores, id);
      if (ctx.json) printJson(ctx, entryJson(entry));
      else ctx.print(JSON.stringify({ ...entryJson(entry), mine: entry.body }, null, 2));
    }),
  );

  withCommonOptions(outbox.command('drop').description('remove a pending, rejected or conflicted entry from the queue').argument('<id>', 'the entry id (a unique prefix is enough)')).action(
    withStores(io, async (ctx, stores, _options, id) => {
      const entry = await findEntry(stores, id);
      if (entry.status === 'sent') throw new UserFacingError(`${entry.id} was sent already`, 'change it on the server instead');
      await stores.outbox.settle([{ id: entry.id, status: 'dropped', reason: 'dropped by the user' }]);
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
      .description('decide a conflict: --mine sends the laptop\'s version over the server\'s, --theirs keeps the server\'s')
      .argument('<id>', 'the entry id (a unique prefix is enough)')
      .option('--mine', 'send the laptop\'s version (based on the server\'s current one)')
      .option('--theirs', 'keep the server\'s version and drop the laptop\'s'),
  ).action(
    withStores(io, async (ctx, stores, options, id) => {
      if (Boolean(options.mine) === Boolean(options.theirs)) throw new UserFacingError('say which version wins', 'pass exactly one of --mine or --theirs', 2);
      const entry = await findEntry(stores, id);
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

function colour(ctx: CommandContext, status: string): string {
  if (status === 'rejected') return ctx.out.red(status);
  if (status === 'conflict') return ctx.out.yellow(status);
  if (status === 'sent') return ctx.out.green(status);
  return status;
}
