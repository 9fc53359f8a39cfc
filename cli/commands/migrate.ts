import type { Command } from 'commander';
import { UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import { clientAction, collect, withCommonOptions } from './common.js';

export interface MigrateOptions {
  profile?: string;
  json?: boolean;
  out?: string;
  choices?: string;
  baseUrl: string;
  remote?: boolean;
  eventType: string[];
  apply?: boolean;
}

export function registerMigrateCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('migrate')
      .description('convert v1 event type documents to v2: files offline, or types on the server with --remote')
      .argument('[files...]', 'v1 documents ({"schema": draft-04, "definition": [...]}, template tags allowed)')
      .option('--out <dir>', 'where to write <name>.v2.json, choices.new.json and migration-report.json')
      .option('--choices <file>', 'existing choices (API records, a {results} page or a Django fixture); default: the mirror\'s')
      .option('--base-url <url>', 'API base of choice references in the v2 documents', '/api')
      .option('--remote', 'migrate event types stored on the server (through its migrate endpoint)')
      .option('--event-type <value>', 'with --remote: an event type to migrate (repeatable)', collect, [])
      .option('--apply', 'with --remote: convert for real, all listed types and their new choices in one transaction (default: dry run)')
      .addHelpText('after', '\nExit codes: 0 every document migrated, 1 some had errors (those are not written / not applied), 2 usage error.'),
  ).action(
    clientAction<MigrateOptions>(io, async (ctx, options, files) => {
      if (options.remote) {
        if (files.length) throw new UserFacingError('--remote takes event type values, not files', 'use --event-type <value> (repeatable)', 2);
        if (!options.eventType.length) throw new UserFacingError('--remote needs at least one --event-type <value>', 'the v1 event types are listed at <server>/api/v1.0/activity/events/eventtypes (`fieldops types list` shows v2 types only)', 2);
        return (await import('../migrate/run.js')).remote(ctx, options);
      }
      if (options.apply || options.eventType.length) throw new UserFacingError('--apply and --event-type need --remote', undefined, 2);
      if (!files.length) throw new UserFacingError('no files to migrate', 'give v1 files, or --remote --event-type <value>', 2);
      if (!options.out) throw new UserFacingError('--out <dir> is required to migrate files', 'e.g. --out migrated/', 2);
      return (await import('../migrate/run.js')).offline(ctx, options, files);
    }),
  );
}
