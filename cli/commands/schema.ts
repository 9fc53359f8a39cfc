/** `fieldops schema ...`: an event type's schema lifecycle (issue 28). The work is in cli/schema/. */
import { Option, type Command } from 'commander';
import type { CliIo } from '../main.js';
import { clientAction, collect, positiveInteger, withCommonOptions } from './common.js';
import type { DiffFormat } from '../../schema/diff/index.js';

/** Every subcommand's options include the common ones (--profile, --json). */
type Opts<T> = T & { profile?: string; json?: boolean };

const EXITS = '\nExit codes: 0 success, 1 failure, 2 usage error.';

export function registerSchemaCommands(program: Command, io: CliIo): void {
  const schema = program.command('schema').description('an event type\'s schema on the server: diff, revisions, restore, drafts, copy between profiles');

  withCommonOptions(schema.command('diff').description('compare two versions of a type\'s {json, ui} schema as forms (fields, choices, constraints, layout)').argument('<type>', 'the event type\'s value'))
    .option('--from <source>', 'a revision number, an ISO 8601 date, `server`, `mirror` or a file (default: see below)')
    .option('--to <source>', 'a revision number, an ISO 8601 date, `server`, `mirror` or a file (default: server)')
    .addOption(new Option('--format <format>', 'report format (--json: json)').choices(['stylish', 'json', 'markdown']))
    .option('--offline', 'never contact the server: compare the mirror\'s copy and files')
    .addHelpText('after', `
Defaults: --to is the server's current revision (the mirror's copy with --offline); --from is the
revision before it when --to is the server, else the server's current revision (the mirror's with
--offline). So \`schema diff T\` shows the last change, and \`schema diff T --to T.json\` what
publishing T.json would change. A defaulted \`server\` side falls back to the mirror's copy when the
server cannot be reached; \`schema diff T\` alone cannot (the mirror keeps no earlier revision)
and fails saying so: use --offline --to FILE.
A file holds a {json, ui} document or an event-type export with its \`schema\`. choices.json
references are resolved through the mirror's choices (after \`fieldops sync\`).
Exit codes: 0 identical, 1 different (or a failure), 2 usage error.`)
    .action(clientAction<Opts<{ from?: string; to?: string; format?: DiffFormat; offline?: boolean }>>(io, async (ctx, options, [value]) => {
      const { schemaDiff } = await import('../schema/lifecycle.js');
      await schemaDiff(ctx, value!, options);
    }));

  withCommonOptions(schema.command('show').description('print a type\'s {json, ui} schema as it is, or as it stood at a revision or date').argument('<type>', 'the event type\'s value'))
    .option('--as-of <revision|date>', 'a revision number (the history\'s sequence) or an ISO 8601 date')
    .option('--offline', 'the mirror\'s copy (current revision only)')
    .addHelpText('after', `\nWithout --as-of: the server's current schema (the mirror's when offline). --json adds the revision.${EXITS}`)
    .action(clientAction<Opts<{ asOf?: string; offline?: boolean }>>(io, async (ctx, options, [value]) => {
      const { schemaShow } = await import('../schema/lifecycle.js');
      await schemaShow(ctx, value!, options);
    }));

  withCommonOptions(schema.command('restore').description('write a new revision whose content equals an earlier one (never a rewrite of history)').argument('<type>', 'the event type\'s value'))
    .requiredOption('--to <revision>', 'the revision to restore (the history\'s sequence)', positiveInteger('--to'))
    .option('--dry-run', 'print the diff it would apply (current → that revision) and write nothing')
    .addHelpText('after', `\nThe write is conditional (If-Match on the revision read first): a type changed meanwhile is not overwritten.${EXITS}`)
    .action(clientAction<Opts<{ to: number; dryRun?: boolean }>>(io, async (ctx, options, [value]) => {
      const { schemaRestore } = await import('../schema/lifecycle.js');
      await schemaRestore(ctx, value!, options);
    }));

  withCommonOptions(schema.command('draft').description('store a draft schema field clients do not see until it is published').argument('<type>', 'the event type\'s value').argument('<file>', 'a {json, ui} document or an event-type export'))
    .addHelpText('after', `\nOne draft per type; storing another replaces it. Check records against it with \`fieldops events validate FILE --type T --draft\`.${EXITS}`)
    .action(clientAction(io, async (ctx, _options, [value, file]) => {
      const { schemaDraft } = await import('../schema/lifecycle.js');
      await schemaDraft(ctx, value!, file!);
    }));

  withCommonOptions(schema.command('publish').description('make the draft the current schema, after the breaking-change check against the recorded events').argument('<type>', 'the event type\'s value'))
    .option('--allow-breaking <rule>', 'allow a deliberate break of this rule (repeatable; needs --reason)', collect)
    .option('--reason <text>', 'why the break is deliberate (recorded in the type\'s history)')
    .option('--rebase', 'publish even though the type gained revisions after the draft was stored (the draft\'s schema replaces the current one)')
    .addHelpText('after', '\nRules: breaking/removed-field, breaking/removed-choice, breaking/narrowed-type,\nbreaking/required-added, breaking/renamed-value.\nWithout --rebase, a draft based on an older revision is refused (see what changed with `schema diff T --from N --to server`).\nExit codes: 0 published, 1 breaking changes found (listed; nothing published) or a failure, 2 usage error.')
    .action(clientAction<Opts<{ allowBreaking?: string[]; reason?: string; rebase?: boolean }>>(io, async (ctx, options, [value]) => {
      const { schemaPublish } = await import('../schema/lifecycle.js');
      await schemaPublish(ctx, value!, options);
    }));

  withCommonOptions(schema.command('discard').description('delete the type\'s draft').argument('<type>', 'the event type\'s value'))
    .addHelpText('after', EXITS)
    .action(clientAction(io, async (ctx, _options, [value]) => {
      const { schemaDiscard } = await import('../schema/lifecycle.js');
      await schemaDiscard(ctx, value!);
    }));

  withCommonOptions(schema.command('copy').description('create or update event types (and the choice lists and categories they use) from one profile\'s server on another\'s').argument('[types...]', 'event type values (or --all)'))
    .option('--all', 'every event type of the --from profile (deactivated ones too)')
    .requiredOption('--from <profile>', 'the profile to read from')
    .requiredOption('--to <profile>', 'the profile to write to')
    .option('--dry-run', 'print the plan (create/update/unchanged per type and choice list) and write nothing')
    .addHelpText('after', `
Types compare as forms (the semantic diff) plus their other fields, so a rerun writes nothing.
Choices only on the target are kept. Needs add/change permissions for event types, choices and
event categories on the target. A table on a terminal; --json for scripts.${EXITS}`)
    .action(clientAction<Opts<{ from: string; to: string; all?: boolean; dryRun?: boolean }>>(io, async (ctx, options, values) => {
      const { schemaCopy } = await import('../schema/copy-run.js');
      await schemaCopy(ctx, values, options);
    }));
}
