import type { Command } from 'commander';
import { connect, printJson } from '../context.js';
import type { CliIo } from '../main.js';
import { clientAction, withCommonOptions } from './common.js';

export function registerPullCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('pull')
      .description('pull open and recent patrols, recent events and subjects with their last positions, for offline reads')
      .addHelpText(
        'after',
        '\nIncremental: only what changed since the last pull is downloaded (`updated_since`); the first pull\n' +
          'takes the last 30 days. `fieldops sync --records` does the same after syncing the catalogs.',
      ),
  ).action(
    clientAction(io, async (ctx) => {
      const { pullAfterSync, pullSummary } = await import('../record/sync-steps.js');
      const connection = await connect(ctx);
      try {
        const pulled = (await pullAfterSync(ctx, connection, true))!;
        if (ctx.json) printJson(ctx, { pull: pulled });
        else ctx.print(pullSummary(pulled));
      } finally {
        await connection.close();
      }
    }),
  );
}
