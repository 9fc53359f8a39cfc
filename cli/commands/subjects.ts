import type { Command } from 'commander';
import { printJson } from '../context.js';
import type { CliIo } from '../main.js';
import { clientAction, withCommonOptions } from './common.js';

export function registerSubjectsCommands(program: Command, io: CliIo): void {
  const subjects = program.command('subjects').description('subjects pulled by `fieldops pull` (offline)');
  withCommonOptions(subjects.command('list').description('subjects with their last known positions, newest first (offline)')).action(
    clientAction(io, async (ctx) => {
      const [{ openOffline }, { pulledRows }] = await Promise.all([import('../record/open.js'), import('../../sync/pull/pulled.js')]);
      const stores = await openOffline(ctx);
      try {
        const rows = await pulledRows(stores.outbox.knex, 'subjects');
        if (ctx.json) return printJson(ctx, rows.map((r) => r.record));
        if (rows.length === 0) return ctx.print('No subjects on this laptop (`fieldops pull` fetches them).');
        const { formatTable } = await import('../output/table.js');
        ctx.print(formatTable(['name', 'id', 'last position', 'at'], rows.map((r) => {
          const point = (r.record.last_position as { geometry?: { coordinates?: [number, number] } } | null)?.geometry?.coordinates;
          return [r.label, r.id, point ? `${point[1].toFixed(5)},${point[0].toFixed(5)}` : '-', r.sortTime ?? '-'];
        })));
      } finally {
        await stores.close();
      }
    }),
  );
}
