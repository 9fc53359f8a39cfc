import fs from 'node:fs';
import type { Command } from 'commander';
import { connect, printJson } from '../context.js';
import { CommandExit, EXIT, UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import { safeText } from '../../sync/safe-text.js';
import { clientAction, withCommonOptions } from './common.js';

/** At most this many records per file: one request each, so a mistake cannot flood the server. */
const MAX_RECORDS = 5000;

export function registerChoicesCommands(program: Command, io: CliIo): void {
  const choices = program.command('choices').description('choice lists on the server');
  withCommonOptions(
    choices
      .command('push')
      .description('create choices on the server from a JSON file (e.g. the choices.new.json `fieldops migrate` writes)')
      .argument('<file>', 'a JSON array of {field, value, display[, ordernum, is_active]}')
      .addHelpText('after', '\nChoices that already exist are left as they are. Needs the add_choice permission.\nProgress is shown on a terminal (stderr), never with --json or when piped.\nExit codes: 0 every choice created or already there, 1 some were refused, 2 usage error.'),
  ).action(
    clientAction(io, async (ctx, _options, [file]) => {
      let records: unknown;
      try {
        records = JSON.parse(fs.readFileSync(file!, 'utf8'));
      } catch (error) {
        throw new UserFacingError(`cannot read the choices in ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 'give a JSON file holding an array of choice records', 2);
      }
      if (!Array.isArray(records)) throw new UserFacingError(`${file} does not hold a JSON array`, 'give an array of {field, value, display} records (as choices.new.json)', 2);
      if (records.length > MAX_RECORDS) throw new UserFacingError(`${file} holds ${records.length} records; at most ${MAX_RECORDS} per push`, 'split the file', 2);
      const [{ pushChoices }, { choicesDisplay }] = await Promise.all([import('../choices/push.js'), import('../ui/choices-display.js')]);
      const connection = await connect(ctx);
      try {
        const display = await choicesDisplay(ctx, records.length);
        const result = await pushChoices(connection.transport, connection.session.server, records, display.onProgress).finally(display.stop);
        if (ctx.json) printJson(ctx, result);
        else {
          ctx.print(`${result.created} created, ${result.existing} already there, ${result.refused.length} refused (of ${records.length} in ${file})`);
          for (const r of result.refused) ctx.print(`  ${safeText(r.field)}/${safeText(r.value)}: ${safeText(r.reason)}`);
          if (result.created) ctx.info('run `fieldops sync` to mirror them (lint checks choice references against the mirror)');
        }
        if (result.refused.length) throw new CommandExit(EXIT.failure);
      } finally {
        await connection.close();
      }
    }),
  );
}
