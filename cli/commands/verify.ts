import type { Command } from 'commander';
import { connect, printJson } from '../context.js';
import { CommandExit, EXIT, UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import { renderVerify } from '../render/verify-report.js';
import { clientAction, withCommonOptions } from './common.js';

/**
 * `fieldops verify [--repair]`: catches up with the feed, recomputes every scope's count and
 * checksum from the rows held (not from anything kept beside them) and compares them with the
 * server's fresh checkpoint; re-derives each row from its stored record (a hand-edited row);
 * lists rows no scope justifies. `--repair` fixes all three from the server. Exit 1 when a
 * difference is left.
 */
export function registerVerifyCommand(program: Command, io: CliIo): void {
  withCommonOptions(program.command('verify').description('check the mirror against the server\'s counts and checksums per scope (and rows edited by hand); --repair fixes them'))
    .option('--repair', 'fetch what is missing or stale, drop what should not be here, restore edited rows')
    .action(
      clientAction<{ profile?: string; json?: boolean; repair?: boolean }>(io, async (ctx, options) => {
        const [{ runFeedStep, feedClient }, { readFeedState, kindsCarried }, verify, { openOffline }] = await Promise.all([
          import('./feed-steps.js'),
          import('../../sync/feed/state.js'),
          import('../../sync/feed/verify.js'),
          import('../record/open.js'),
        ]);
        const [{ sleep }, { KIND_TABLE }] = await Promise.all([import('../../sync/retry.js'), import('../../sync/feed/rows.js')]);
        const stores = await openOffline(ctx);
        const connection = await connect(ctx);
        try {
          const knex = stores.outbox.knex;
          const before = await readFeedState(knex);
          if (!before.keys) throw new UserFacingError('this mirror has not pulled through the change feed yet: nothing to verify', 'run `fieldops pull` once while online');
          const feed = await runFeedStep(ctx, connection, { repair: false }, stores);
          if (feed.mode === 'fallback') throw new UserFacingError('the server has no change feed, so the mirror cannot be verified against it', 'a server of this fieldops version or later has one');
          // After the catch-up: a row a newer change replaced is no longer one edited here.
          const carried = kindsCarried(feed.granted);
          const tampered = await verify.tamperedRows(knex, carried);
          const unscoped = await verify.unscopedRows(knex, carried);
          const repairs = [];
          let restored = 0;
          let dropped = 0;
          if (options.repair) {
            const deps = { client: feedClient(ctx, connection), knex, granted: feed.granted, wait: (ms: number) => sleep(ms) };
            for (const { server } of feed.mismatched) repairs.push(await verify.repairScope(deps, server.key));
            if (tampered.length) restored = await verify.refetch(deps, tampered, null);
            for (const row of unscoped) dropped += await knex(KIND_TABLE[row.kind]).where({ id: row.id }).delete();
          }
          const stillTampered = options.repair ? await verify.tamperedRows(knex, carried) : tampered;
          const ok = feed.checkpoint !== 'not_verified' && feed.checkpoint !== 'none' && (options.repair ? repairs.every((r) => r.repaired) && stillTampered.length === 0 : feed.mismatched.length === 0 && tampered.length === 0 && unscoped.length === 0);
          const result = {
            ok,
            checkpoint: feed.checkpoint,
            scopes: feed.mismatched.map((m) => ({ scope: m.server.key, server: m.server, local: m.local })),
            tampered,
            unscoped,
            repaired: options.repair ? { scopes: repairs, restored_rows: restored, dropped_rows: dropped, still_tampered: stillTampered } : null,
          };
          if (ctx.json) printJson(ctx, result);
          else ctx.print(renderVerify(result, ctx.out));
          if (!ok) throw new CommandExit(EXIT.failure);
        } finally {
          await connection.close();
          await stores.close();
        }
      }),
    );
}
