import { Option, type Command } from 'commander';
import { printJson } from '../context.js';
import { CommandExit, EXIT } from '../errors.js';
import type { FormatName } from '../lint/formats/index.js';
import type { NewEventOptions } from '../record/event-new.js';
import type { CliIo } from '../main.js';
import { toolVersion } from '../version.js';
import { clientAction, withCommonOptions } from './common.js';
import { registerEventValidateCommand } from './events-validate.js';

const FORMAT_NAMES: FormatName[] = ['stylish', 'json', 'sarif', 'junit', 'github'];
const integer = (raw: string) => Number(raw);

interface NewOptions extends NewEventOptions {
  profile?: string;
  json?: boolean;
}

export function registerEventsCommands(program: Command, io: CliIo): void {
  const events = program.command('events').description('record events offline, import datasheets, and read pulled events');
  registerEventStateCommand(events, io);
  registerEventValidateCommand(events, io);

  withCommonOptions(events.command('new').description('record one event offline (queued in the outbox; `fieldops push` sends it)'))
    .requiredOption('--type <value>', 'the v2 event type (from the mirror)')
    .option('--details <json>', "event_details as JSON, or @file.json (on a terminal, a form asks when this is absent)")
    .option('--time <iso>', 'when it happened (ISO 8601 with offset; default now)')
    .option('--location <lat,lon>', 'where, e.g. -1.2921,36.8219')
    .option('--priority <n>', '0, 100, 200 or 300', integer)
    .addOption(new Option('--state <state>', 'event state').choices(['new', 'active', 'resolved']))
    .option('--title <text>', 'title (default: the type\'s display)')
    .option('--file <path>', 'attach a file (a photo); repeatable. Copied beside the mirror, uploaded resumably by `fieldops push`', collect)
    .option('--comment <text>', 'the attached file\'s comment: one for all files, or one per --file in order', collect)
    .action(
      clientAction<NewOptions>(io, async (ctx, options) => {
        const [{ openOffline }, { eventInput, eventTypeForRecording, filesToAttach, readDetails, recordEvent }] = await Promise.all([import('../record/open.js'), import('../record/event-new.js')]);
        const files = filesToAttach(options.file, options.comment);
        const stores = await openOffline(ctx);
        try {
          const type = await eventTypeForRecording(stores.mirror, options.type);
          let details = readDetails(options.details);
          if (details === undefined && ctx.stdoutTty && isTtyInput(io) && !ctx.json) {
            const { askEventDetails } = await import('../record/event-form.js');
            details = await askEventDetails(ctx, type);
          }
          const { id, body, files: staged } = await recordEvent(stores, type, eventInput(options, details ?? {}), files);
          if (ctx.json) printJson(ctx, { id, queued: true, event: body, files: staged.map(fileJson) });
          else ctx.print(`${ctx.out.green('✔')} event ${id} (${type.value}) queued${staged.length ? ` with ${staged.length} file${staged.length === 1 ? '' : 's'}` : ''}; \`fieldops push\` sends it`);
        } finally {
          await stores.close();
        }
      }),
    );

  withCommonOptions(
    events
      .command('import')
      .description('validate a datasheet (CSV, JSON or NDJSON) offline and queue its events')
      .argument('<file>', 'the datasheet')
      .requiredOption('--type <value>', 'the v2 event type of every row')
      .addOption(new Option('--input-format <format>', 'the file\'s format (default: from its extension)').choices(['csv', 'json', 'ndjson']))
      .addOption(new Option('--format <format>', 'report invalid rows in a lint format (default: stylish; --json prints a summary with the findings)').choices(FORMAT_NAMES))
      .option('--skip-invalid', 'queue the valid rows even when some are invalid')
      .addHelpText(
        'after',
        '\nCSV: a header `time,latitude,longitude,priority,state` plus one column per schema field; several\n' +
          'choices in one cell are separated by ";"; a choice may be given by value or display.\n' +
          'JSON: an array of event objects; NDJSON: one event object per line.\n' +
          'Nothing of a file with an invalid row is queued unless --skip-invalid. Importing the same file\n' +
          'again queues nothing (ids derive from the file\'s content and the row).\n' +
          'Exit codes: 0 all rows valid, 1 invalid rows (reported), 2 usage error.',
      ),
  ).action(
    clientAction<{ profile?: string; json?: boolean; type: string; inputFormat?: string; format?: FormatName; skipInvalid?: boolean }>(io, async (ctx, options, [file]) => {
      const [{ openOffline }, { formatOf, importEvents }, { FORMATS }, path] = await Promise.all([
        import('../record/open.js'), import('../record/import-events.js'), import('../lint/formats/index.js'), import('node:path'),
      ]);
      const format = formatOf(file!, options.inputFormat);
      const stores = await openOffline(ctx);
      try {
        const relative = path.relative(process.cwd(), file!);
        const shownPath = relative.startsWith('..') ? file! : relative;
        const result = await importEvents({ file: file!, shownPath, format, type: options.type, skipInvalid: Boolean(options.skipInvalid), mirror: stores.mirror, outbox: stores.outbox });
        const summary = { file: shownPath, rows: result.rows, valid: result.valid, invalid: result.invalid, queued: result.queued, already_queued: result.fileProblems || (result.invalid && !options.skipInvalid) ? 0 : result.valid - result.queued };
        // --json: the summary with the findings; --format: the report in a lint format; else stylish when there are findings.
        const findings = result.report.files[0]!.findings;
        if (options.format) io.stdout.write(FORMATS[options.format](result.report, { color: ctx.out.enabled, toolVersion: toolVersion() }));
        else if (ctx.json) printJson(ctx, { ...summary, findings });
        else if (findings.length > 0) io.stdout.write(FORMATS.stylish(result.report, { color: ctx.out.enabled, toolVersion: toolVersion() }));
        const nothing = result.fileProblems > 0 || (result.invalid > 0 && !options.skipInvalid);
        ctx.info(
          nothing
            ? `fieldops events import: ${result.invalid} of ${result.rows} rows invalid; nothing queued (fix them, or pass --skip-invalid)`
            : `fieldops events import: ${result.queued} queued${summary.already_queued ? `, ${summary.already_queued} already queued before` : ''}${result.invalid ? `, ${result.invalid} invalid skipped` : ''} (of ${result.rows} rows)`,
        );
        if (result.invalid > 0 || result.fileProblems > 0) throw new CommandExit(EXIT.failure);
      } finally {
        await stores.close();
      }
    }),
  );
}

// NOTE: CliIo carries no stdin; the form reads the process's own terminal.
function registerEventStateCommand(events: Command, io: CliIo): void {
  withCommonOptions(events.command('state').description('change an event\'s state offline (sent with If-Match on the version pulled)').argument('<id>', 'the event (an id prefix is enough)').argument('<state>', 'new, active or resolved')).action(
    clientAction(io, async (ctx, _options, [ref, state]) => {
      const [{ openOffline }, { changeEventState }] = await Promise.all([import('../record/open.js'), import('../record/event-state.js')]);
      const stores = await openOffline(ctx);
      try {
        const change = await changeEventState(stores, ref!, state!);
        if (ctx.json) printJson(ctx, { id: change.id, event: change.event, queued: true });
        else ctx.print(`${ctx.out.green('✔')} state change of event ${change.event} queued (${change.id})`);
      } finally {
        await stores.close();
      }
    }),
  );

  withCommonOptions(
    events
      .command('attach')
      .description('attach a file (a photo) to an event offline: copied beside the mirror, uploaded resumably by `fieldops push`')
      .argument('<id>', 'the event: pulled, or recorded here and maybe not yet pushed (an id prefix is enough)')
      .argument('<file>', 'the file'),
  )
    .option('--comment <text>', 'a comment', '')
    .action(
      clientAction<{ profile?: string; json?: boolean; comment?: string }>(io, async (ctx, options, [ref, file]) => {
        const [{ openOffline }, { attachToEvent }] = await Promise.all([import('../record/open.js'), import('../record/event-attach.js')]);
        const stores = await openOffline(ctx);
        try {
          const attached = await attachToEvent(stores, ref!, file!, options.comment ?? '');
          if (ctx.json) printJson(ctx, { id: attached.id, event: attached.event, queued: true, file: fileJson(attached.file) });
          else ctx.print(`${ctx.out.green('✔')} file ${attached.file.filename} queued for event ${attached.event} (${attached.id}); \`fieldops push\` uploads it`);
        } finally {
          await stores.close();
        }
      }),
    );

  withCommonOptions(events.command('list').description('events pulled by `fieldops pull` and recorded here, newest first (offline)')).action(
    clientAction(io, async (ctx) => {
      const [{ openOffline }, { listEvents }] = await Promise.all([import('../record/open.js'), import('../record/lists.js')]);
      const stores = await openOffline(ctx);
      try {
        const rows = await listEvents(stores);
        if (ctx.json) return printJson(ctx, rows);
        if (rows.length === 0) return ctx.print('No events on this laptop (`fieldops pull` fetches recent ones).');
        const { formatTable } = await import('../output/table.js');
        ctx.print(formatTable(['id', 'type', 'time', 'state', 'where'], rows.map((r) => [r.id, r.eventType, r.time ?? '', r.state, r.origin])));
      } finally {
        await stores.close();
      }
    }),
  );
}

const isTtyInput = (_io: CliIo) => Boolean(process.stdin.isTTY);
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
const fileJson = (f: { id: string; filename: string; size: number; sha256: string; comment: string }) => ({ id: f.id, filename: f.filename, size: f.size, sha256: f.sha256, comment: f.comment });
