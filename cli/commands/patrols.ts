import type { Command } from 'commander';
import { printJson } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import { clientAction, withCommonOptions } from './common.js';

type Options = { profile?: string; json?: boolean; type?: string; title?: string; leader?: string; location?: string; comment?: string; all?: boolean };

async function location(raw: string | undefined) {
  if (raw === undefined) return undefined;
  const { parseLocation } = await import('../record/event-record.js');
  const parsed = parseLocation(raw);
  if (!parsed) throw new UserFacingError(`--location "${raw}" is not LAT,LON in range`, 'for example --location -1.2921,36.8219', 2);
  return parsed;
}

export function registerPatrolsCommands(program: Command, io: CliIo): void {
  const patrols = program.command('patrols').description('start, end and annotate patrols offline; list the patrols pulled and started here');
  const run = (work: (ctx: Parameters<Parameters<typeof clientAction<Options>>[1]>[0], stores: import('../record/open.js').OfflineStores, options: Options, args: string[]) => Promise<void>) =>
    clientAction<Options>(io, async (ctx, options, args) => {
      const { openOffline } = await import('../record/open.js');
      const stores = await openOffline(ctx);
      try {
        await work(ctx, stores, options, args);
      } finally {
        await stores.close();
      }
    });

  withCommonOptions(patrols.command('start').description('start a patrol offline (one segment, starting now)'))
    .requiredOption('--type <value>', 'the patrol type (from the mirror)')
    .option('--title <text>', 'title')
    .option('--leader <name or id>', 'the segment leader (a subject from `fieldops trackedby`)')
    .option('--location <lat,lon>', 'where it starts')
    .action(
      run(async (ctx, stores, options) => {
        const { startPatrol } = await import('../record/patrols.js');
        const started = await startPatrol(stores, { type: options.type!, title: options.title, leader: options.leader, location: await location(options.location), now: ctx.now() });
        if (ctx.json) printJson(ctx, { id: started.id, segment: started.segmentId, queued: true });
        else ctx.print(`${ctx.out.green('✔')} patrol ${started.id} started; \`fieldops patrols end ${started.id.slice(0, 8)}\` ends it, \`fieldops push\` sends it`);
      }),
    );

  withCommonOptions(patrols.command('end').description('end a patrol\'s open segment offline').argument('<id or serial>', 'the patrol (an id prefix is enough)'))
    .option('--location <lat,lon>', 'where it ends')
    .action(
      run(async (ctx, stores, options, [ref]) => {
        const { endPatrol } = await import('../record/patrols.js');
        const ended = await endPatrol(stores, ref!, { location: await location(options.location), now: ctx.now() });
        if (ctx.json) printJson(ctx, { id: ended.id, patrol: ended.patrol, queued: true });
        else ctx.print(`${ctx.out.green('✔')} end of patrol ${ended.patrol} queued (${ended.id})`);
      }),
    );

  withCommonOptions(patrols.command('note').description('add a note to a patrol offline').argument('<id or serial>', 'the patrol').argument('<text>', 'the note')).action(
    run(async (ctx, stores, _options, [ref, text]) => {
      const { notePatrol } = await import('../record/patrols.js');
      const note = await notePatrol(stores, ref!, text!);
      if (ctx.json) printJson(ctx, { id: note.id, patrol: note.patrol, queued: true });
      else ctx.print(`${ctx.out.green('✔')} note ${note.id} queued for patrol ${note.patrol}`);
    }),
  );

  // The same path as `events attach` (cli/record/event-attach.ts): staged, size-checked, uploaded resumably.
  withCommonOptions(patrols.command('attach').description('attach a file to a patrol offline (copied beside the mirror until pushed)').argument('<id or serial>', 'the patrol').argument('<file>', 'the file'))
    .option('--comment <text>', 'a comment', '')
    .action(
      run(async (ctx, stores, options, [ref, file]) => {
        const { attachToPatrol } = await import('../record/event-attach.js');
        const attached = await attachToPatrol(stores, ref!, file!, options.comment ?? '');
        if (ctx.json) printJson(ctx, { id: attached.id, patrol: attached.patrol, queued: true, file: { filename: attached.file.filename, size: attached.file.size, sha256: attached.file.sha256 } });
        else ctx.print(`${ctx.out.green('✔')} file ${attached.id} queued for patrol ${attached.patrol}`);
      }),
    );

  withCommonOptions(patrols.command('list').description('patrols pulled by `fieldops sync` and started on this laptop (offline)')).action(
    run(async (ctx, stores) => {
      const { listPatrols } = await import('../record/lists.js');
      const rows = await listPatrols(stores);
      if (ctx.json) return printJson(ctx, rows);
      const { formatTable } = await import('../output/table.js');
      if (rows.length === 0) return ctx.print('No patrols on this laptop (`fieldops sync` pulls open and recent ones).');
      ctx.print(formatTable(['serial', 'id', 'title', 'state', 'start', 'where'], rows.map((r) => [r.serial === null ? '-' : String(r.serial), r.id, r.title ?? '', r.state, r.start ?? '', r.origin])));
    }),
  );
}
