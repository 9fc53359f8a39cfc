import { Option, type Command } from 'commander';
import { connect, openMirror, printJson } from '../context.js';
import { CommandExit, EXIT } from '../errors.js';
import type { FormatName } from '../lint/formats/index.js';
import type { CliIo } from '../main.js';
import { toolVersion } from '../version.js';
import { clientAction, withCommonOptions } from './common.js';

const FORMAT_NAMES: FormatName[] = ['stylish', 'json', 'sarif', 'junit', 'github'];

interface ValidateOptions {
  profile?: string;
  json?: boolean;
  type: string;
  draft?: boolean;
  inputFormat?: string;
  format?: FormatName;
}

/** `fieldops events validate FILE --type T [--draft]` (issue 28): check sample records, queue nothing. */
export function registerEventValidateCommand(events: Command, io: CliIo): void {
  withCommonOptions(
    events
      .command('validate')
      .description("check sample records (CSV, JSON or NDJSON, as `events import` reads them) against a type's schema; nothing is queued")
      .argument('<file>', 'the records')
      .requiredOption('--type <value>', 'the v2 event type')
      .option('--draft', "against the type's draft on the server (online) instead of the mirrored current schema (offline)")
      .addOption(new Option('--input-format <format>', "the file's format (default: from its extension)").choices(['csv', 'json', 'ndjson']))
      .addOption(new Option('--format <format>', 'report format (default: stylish; --json prints a summary with the findings)').choices(FORMAT_NAMES))
      .addHelpText('after', '\nExit codes: 0 every record valid, 1 invalid records (reported), 2 usage error.'),
  ).action(
    clientAction<ValidateOptions>(io, async (ctx, options, [file]) => {
      const [{ formatOf }, { validateRecords, draftTypeForRecording }, { eventTypeForRecording }, { FORMATS }, path] = await Promise.all([
        import('../record/import-events.js'), import('../record/validate-events.js'), import('../record/event-type.js'), import('../lint/formats/index.js'), import('node:path'),
      ]);
      const format = formatOf(file!, options.inputFormat);
      let type;
      if (options.draft) {
        const connection = await connect(ctx);
        const mirror = await openMirror(ctx, { create: false, optional: true });
        try {
          type = await draftTypeForRecording({ transport: connection.transport, server: connection.session.server, value: options.type, mirror });
        } finally {
          await mirror?.close();
          await connection.close();
        }
      } else {
        const mirror = await openMirror(ctx, { create: false });
        try {
          type = await eventTypeForRecording(mirror, options.type);
        } finally {
          await mirror.close();
        }
      }
      const relative = path.relative(process.cwd(), file!);
      const shownPath = relative.startsWith('..') ? file! : relative;
      const result = validateRecords({ file: file!, shownPath, format, type });
      const findings = result.report.files[0]!.findings;
      const against = options.draft ? `the draft of ${type.value}` : type.value;
      if (options.format) io.stdout.write(FORMATS[options.format](result.report, { color: ctx.out.enabled, toolVersion: toolVersion() }));
      else if (ctx.json) printJson(ctx, { file: shownPath, type: type.value, draft: Boolean(options.draft), rows: result.rows, valid: result.valid, invalid: result.invalid, findings });
      else if (findings.length > 0) io.stdout.write(FORMATS.stylish(result.report, { color: ctx.out.enabled, toolVersion: toolVersion() }));
      ctx.info(`fieldops events validate: ${result.valid} of ${result.rows} records valid against ${against}`);
      if (result.invalid > 0 || result.fileProblems > 0) throw new CommandExit(EXIT.failure);
    }),
  );
}
