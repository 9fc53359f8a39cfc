import { Option, type Command } from 'commander';
import { printJson } from '../context.js';
import { CommandExit, EXIT, UserFacingError } from '../errors.js';
import type { FormatName } from '../lint/formats/index.js';
import type { CliIo } from '../main.js';
import { toolVersion } from '../version.js';
import { clientAction, withCommonOptions } from './common.js';

const FORMAT_NAMES: FormatName[] = ['stylish', 'json', 'sarif', 'junit', 'github'];

interface Options {
  profile?: string;
  json?: boolean;
  subject: string;
  sourceType: string;
  provider: string;
  manufacturerId?: string;
  inputFormat?: 'gpx' | 'kml' | 'csv';
  format?: FormatName;
  skipInvalid?: boolean;
}

export function registerObservationsCommands(program: Command, io: CliIo): void {
  const observations = program.command('observations').description('import GPS tracks offline as sensor observations');
  withCommonOptions(
    observations
      .command('import')
      .description('validate a GPX or KML track or a CSV of positions offline and queue them as observations of a subject')
      .argument('<file>', 'a .gpx or .kml file, or a .csv with recorded_at,latitude,longitude (other columns go into `additional`)')
      .requiredOption('--subject <name or id>', 'whose positions these are (a name creates the subject on first sight)')
      .option('--source-type <type>', 'the sensor type of the source', 'gps-radio')
      .option('--provider <key>', 'the provider key the observations are posted under', 'fieldops-cli')
      .option('--manufacturer-id <id>', 'the source (device) id (default: one per profile and subject)')
      .addOption(new Option('--input-format <format>', 'the file\'s format (default: from its extension)').choices(['gpx', 'kml', 'csv']))
      .addOption(new Option('--format <format>', 'report invalid points in a lint format').choices(FORMAT_NAMES))
      .option('--skip-invalid', 'queue the valid points even when some are invalid')
      .addHelpText(
        'after',
        '\nKML: a Placemark\'s Point (at its TimeStamp), LineString (no per-point time: each point is reported) or gx:Track\n' +
          '(a <when> per <gx:coord>), as `fieldops export tracks --format kml` writes. Importing the same file again queues nothing.\n' +
          'Exit codes: 0 all points valid, 1 invalid points, 2 usage error.',
      ),
  ).action(
    clientAction<Options>(io, async (ctx, options, [file]) => {
      const [{ openOffline }, { importObservations }, { FORMATS }, path] = await Promise.all([
        import('../record/open.js'), import('../record/observations.js'), import('../lint/formats/index.js'), import('node:path'),
      ]);
      const format = options.inputFormat ?? (path.extname(file!).slice(1).toLowerCase() as 'gpx' | 'kml' | 'csv');
      if (format !== 'gpx' && format !== 'kml' && format !== 'csv') throw new UserFacingError(`cannot tell the format of ${file}`, 'name it .gpx, .kml or .csv, or pass --input-format gpx|kml|csv', 2);
      if (!/^[\w.:-]{1,100}$/.test(options.provider) || !/^[\w.-]{1,50}$/.test(options.sourceType)) throw new UserFacingError('--provider and --source-type are short names (letters, digits, . _ - :)', undefined, 2);
      const stores = await openOffline(ctx);
      try {
        const relative = path.relative(process.cwd(), file!);
        const shownPath = relative.startsWith('..') ? file! : relative;
        const result = await importObservations(stores, {
          file: file!, shownPath, format, subject: options.subject, sourceType: options.sourceType, providerKey: options.provider,
          manufacturerId: options.manufacturerId ?? `fieldops-${ctx.profile}-${options.subject}`.slice(0, 100), skipInvalid: Boolean(options.skipInvalid),
        });
        const findings = result.report.files[0]!.findings;
        const summary = { file: shownPath, points: result.points, valid: result.valid, invalid: result.invalid, queued: result.queued };
        if (options.format) io.stdout.write(FORMATS[options.format](result.report, { color: ctx.out.enabled, toolVersion: toolVersion() }));
        else if (ctx.json) printJson(ctx, { ...summary, findings });
        else if (findings.length > 0) io.stdout.write(FORMATS.stylish(result.report, { color: ctx.out.enabled, toolVersion: toolVersion() }));
        const nothing = result.fileProblems > 0 || (result.invalid > 0 && !options.skipInvalid);
        if (result.fileProblems > 0) ctx.info(`fieldops observations import: ${shownPath} cannot be read (${result.fileProblems} ${result.fileProblems === 1 ? 'problem' : 'problems'}); nothing queued`);
        else if (result.points > 0) ctx.info(nothing ? `fieldops observations import: ${result.invalid} of ${result.points} points invalid; nothing queued` : `fieldops observations import: ${result.queued} queued of ${result.points} points${result.valid > result.queued ? ` (${result.valid - result.queued} already queued before)` : ''}`);
        if (result.invalid > 0 || result.fileProblems > 0) throw new CommandExit(EXIT.failure);
        if (result.points === 0) throw new UserFacingError(`no points in ${shownPath}`, format === 'gpx' ? 'a GPX track has <trkpt lat=".." lon=".."><time>..</time></trkpt> elements' : format === 'kml' ? 'a KML track has Placemarks with a <Point>, a <LineString> or a <gx:Track>' : 'the header is recorded_at,latitude,longitude');
      } finally {
        await stores.close();
      }
    }),
  );
}
