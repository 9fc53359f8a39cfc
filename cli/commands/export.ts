import fs from 'node:fs';
import path from 'node:path';
import { Argument, InvalidArgumentError, Option, type Command } from 'commander';
import { printJson } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import { clientAction, withCommonOptions } from './common.js';

interface Options {
  profile?: string;
  json?: boolean;
  format: 'csv' | 'geojson' | 'kml' | 'gpx';
  since?: number;
  until?: number;
  type?: string;
  subject?: string;
  output?: string;
}

/** An ISO 8601 date (midnight UTC) or date-time with an offset, as epoch milliseconds. */
function instant(name: string) {
  return (raw: string): number => {
    const date = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw;
    const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(date) ? Date.parse(date) : NaN;
    // Date.parse rolls impossible fields over (2026-02-30 is 2026-03-02; 24:00 the next day): refused.
    const [, year, month, day, hour, minute, second] = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(date) ?? [];
    const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
    const possible = calendar.getUTCDate() === Number(day) && calendar.getUTCMonth() === Number(month) - 1 && Number(hour) < 24 && Number(minute) < 60 && Number(second ?? 0) < 60;
    if (Number.isNaN(at) || !possible) throw new InvalidArgumentError(`${name} is a date (2026-11-20) or a date-time with an offset (2026-11-20T06:00:00Z).`);
    return at;
  };
}

export function registerExportCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('export')
      .description('write events, tracks or subjects held on this laptop to a file (offline: no request)')
      .addArgument(new Argument('<what>', 'events, tracks or subjects').choices(['events', 'tracks', 'subjects']))
      .addOption(new Option('--format <format>', 'the file format').choices(['csv', 'geojson', 'kml', 'gpx']).default('csv'))
      .option('--since <time>', 'from this time on (an event\'s time, a point\'s recorded_at, a subject\'s last position)', instant('--since'))
      .option('--until <time>', 'before this time', instant('--until'))
      .option('--type <value>', 'events of this event type; tracks of this source type; subjects of this subtype')
      .option('--subject <name or id>', 'tracks and subjects of this subject; events that name it among their subjects')
      .option('--output <file>', 'write to this file (replaced when complete) instead of standard output')
      .addHelpText(
        'after',
        [
          '',
          'Events: those pulled by `fieldops pull` and those recorded here not yet pulled back. Subjects: those pulled.',
          'Tracks: the fixes `fieldops sync` pulled from the server (once the mirror pulls records) and the observations',
          'recorded on this laptop (`observations import`, queued or sent); one pushed and pulled back is written once.',
          'GPX and KML tracks read back with `fieldops observations import` (same points and times; KML as gx:Track).',
          'GPX and KML hold positions only: rows without one are skipped (and counted). --json prints the summary',
          '(with --output; the data itself is the output otherwise).',
        ].join('\n'),
      ),
  ).action(
    clientAction<Options>(io, async (ctx, options, [what]) => {
      const kind = what as 'events' | 'tracks' | 'subjects';
      const toStdout = !options.output || options.output === '-';
      if (ctx.json && toStdout) throw new UserFacingError('--json prints the summary, and the export itself is on standard output', 'add --output FILE', 2);
      if (options.since !== undefined && options.until !== undefined && options.since >= options.until) throw new UserFacingError('--since is not before --until', undefined, 2);
      const [{ openOffline }, { runExport }] = await Promise.all([import('../record/open.js'), import('../export/run.js')]);
      const stores = await openOffline(ctx);
      const file = toStdout ? null : path.resolve(options.output!);
      const partial = file ? `${file}.${process.pid}.part` : null;
      let out: NodeJS.WritableStream = io.stdout;
      let stream: fs.WriteStream | null = null;
      try {
        if (partial) {
          stream = await openOutput(partial, options.output!);
          out = stream;
        }
        const filter = { since: options.since ?? null, until: options.until ?? null, type: options.type ?? null, subject: options.subject ?? null };
        const summary = await runExport(stores.outbox.knex, { kind, format: options.format, filter }, out, (n) => ctx.status.update(`fieldops export ${kind}: ${n} written`));
        if (stream) {
          await new Promise<void>((resolve, reject) => stream!.end((error?: Error | null) => (error ? reject(error) : resolve())));
          fs.renameSync(partial!, file!);
        }
        ctx.status.clear();
        const where = file ? options.output! : 'standard output';
        if (ctx.json) return printJson(ctx, { ...summary, output: file ? options.output : '-' });
        const noun = kind === 'tracks' ? `points in ${summary.tracks} ${summary.tracks === 1 ? 'track' : 'tracks'}` : kind;
        ctx.info(`fieldops export ${kind}: ${summary.written} ${noun} written to ${where}${summary.skipped ? ` (${summary.skipped} without a position skipped: ${options.format.toUpperCase()} holds positions only)` : ''}`);
      } catch (error) {
        stream?.destroy();
        if (partial) fs.rmSync(partial, { force: true });
        throw error;
      } finally {
        await stores.close();
      }
    }),
  );
}

/** Positions of people and wildlife: readable by the owner only (0600), as `outbox export` writes. */
async function openOutput(partial: string, shown: string): Promise<fs.WriteStream> {
  const stream = fs.createWriteStream(partial, { flags: 'wx', mode: 0o600 });
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UserFacingError(`cannot write ${shown}: the folder ${path.dirname(shown)} does not exist`, `create the folder first (mkdir -p ${path.dirname(shown)}), or choose another --output`, 1, { cause: error });
    throw new UserFacingError(`cannot write ${shown} (${code})`, 'choose another --output path you may write to', 1, { cause: error });
  }
  return stream;
}
