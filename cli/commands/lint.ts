import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { openMirror, type CommandContext } from '../context.js';
import { CommandExit, EXIT, UserFacingError } from '../errors.js';
import type { FormatName } from '../lint/formats/index.js';
import type { CliIo } from '../main.js';
import { toolVersion } from '../version.js';
import { COMPAT_RULES as COMPAT_RULE_IDS, type AllowedBreak, type CompatRule } from '../../schema/compat/types.js';
import { clientAction, collect, withCommonOptions } from './common.js';

const FORMAT_NAMES: FormatName[] = ['stylish', 'json', 'sarif', 'junit', 'github'];

interface LintOptions {
  profile?: string;
  json?: boolean;
  format?: FormatName;
  output?: string;
  maxWarnings?: string;
  mirror: boolean;
  against?: string;
  allowBreaking?: string[];
  reason?: string;
}

export function registerLintCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('lint')
      .description('validate v2 {json, ui} documents (and the schema of patrol/event type exports) with every rule of the toolkit')
      .argument('<paths...>', 'files, directories (every *.json below) or quoted globs')
      .addOption(new Option('--format <format>', 'report format (default: github under GITHUB_ACTIONS, else stylish)').choices(FORMAT_NAMES))
      .option('--output <file>', 'write the report to a file instead of standard output')
      .option('--max-warnings <n>', 'exit 1 when there are more warnings than this')
      .option('--no-mirror', 'do not check choice references against the mirrored choices')
      .option('--against <profile|mirror>', "compare each event type file with the type's current revision and what its stored events hold: a profile's server (online), or `mirror` (this profile's mirror, offline)")
      .option('--allow-breaking <rule>', 'with --against: report this breaking-change rule as a warning (repeatable; needs --reason)', collect)
      .option('--reason <text>', 'why the --allow-breaking breaks are deliberate (carried in the report)')
      .addHelpText(
        'after',
        '\nWith --against, a file names its event type by its `value` (a type export) or by its name\n' +
          '(<value>.json, <value>.v2.json). Breaking-change rules: ' + COMPAT_RULE_IDS.join(', ') + '.\n' +
          'Exit codes: 0 no errors (and warnings within --max-warnings), 1 errors found, 2 usage error.',
      ),
  ).action(
    clientAction<LintOptions>(io, async (ctx, options, paths) => {
      const maxWarnings = options.maxWarnings === undefined ? Infinity : Number(options.maxWarnings);
      if (maxWarnings !== Infinity && !(Number.isInteger(maxWarnings) && maxWarnings >= 0)) {
        throw new UserFacingError(`--max-warnings must be a whole number, 0 or more (got ${options.maxWarnings})`, 'leave it out for no limit', 2);
      }
      const allow = allowedBreaks(options);
      const format: FormatName = options.format ?? (options.json ? 'json' : ctx.settings.githubActions ? 'github' : 'stylish');
      const [{ collectFiles }, { FORMATS }, { summarise }, { runLint }] = await Promise.all([
        import('../lint/collect-files.js'),
        import('../lint/formats/index.js'),
        import('../lint/report.js'),
        import('../lint/run-lint.js'),
      ]);
      const targets = collectFiles(paths);
      const choices = options.mirror ? await choiceListsOf(ctx) : undefined;
      const against = options.against ? await (await import('../lint/against-sources.js')).openAgainstSource(ctx, options.against) : null;
      let report;
      try {
        report = await runLint(targets, choices, against ? { source: against.source, allow } : undefined);
      } finally {
        await against?.close();
      }
      for (const note of report.against?.notes ?? []) ctx.info(`fieldops lint: ${note}`);
      const text = FORMATS[format](report, { color: !options.output && ctx.out.enabled, toolVersion: toolVersion() });
      if (options.output) await writeReport(options.output, text);
      else io.stdout.write(text);
      const summary = summarise(report);
      if (options.output) ctx.info(`fieldops lint: ${summary.errors} errors, ${summary.warnings} warnings in ${summary.documents} documents; report written to ${options.output}`);
      if (summary.errors > 0) throw new CommandExit(EXIT.failure);
      if (summary.warnings > maxWarnings) {
        ctx.info(`fieldops lint: ${summary.warnings} warnings exceed --max-warnings ${maxWarnings}`);
        throw new CommandExit(EXIT.failure);
      }
    }),
  );
}

/** `--allow-breaking` rules with the `--reason`: both or neither, and only known rule ids. */
function allowedBreaks(options: LintOptions): AllowedBreak[] {
  const rules = options.allowBreaking ?? [];
  if (rules.length === 0) {
    if (options.reason !== undefined) throw new UserFacingError('--reason goes with --allow-breaking', 'name the rule you allow: --allow-breaking <rule> --reason TEXT', 2);
    return [];
  }
  if (!options.against) throw new UserFacingError('--allow-breaking needs --against', 'add --against <profile> or --against mirror', 2);
  const unknown = rules.filter((r) => !(COMPAT_RULE_IDS as readonly string[]).includes(r));
  if (unknown.length) throw new UserFacingError(`unknown breaking-change rule ${unknown.map((r) => JSON.stringify(r)).join(', ')}`, `the rules are: ${COMPAT_RULE_IDS.join(', ')}`, 2);
  const reason = options.reason?.trim() ?? '';
  if (!reason) throw new UserFacingError('--allow-breaking needs --reason TEXT', 'say why the break is deliberate, e.g. --reason "field retired, see #123"', 2);
  if (reason.length > 1000) throw new UserFacingError('--reason is longer than 1000 characters', 'shorten it; link to a ticket for the details', 2);
  return [...new Set(rules)].map((rule) => ({ rule: rule as CompatRule, reason }));
}

async function choiceListsOf(ctx: CommandContext) {
  const store = await openMirror(ctx, { create: false, optional: true });
  if (!store) return undefined;
  try {
    const { mirrorChoiceLists } = await import('../lint/run-lint.js');
    return await mirrorChoiceLists(store);
  } finally {
    await store.close();
  }
}

/** The report file: a folder that does not exist or cannot be written is the user's to fix. */
async function writeReport(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UserFacingError(`cannot write ${file}: the folder ${path.dirname(file)} does not exist`, `create the folder first (mkdir -p ${path.dirname(file)}), or choose another --output`, 1, { cause: error });
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'EISDIR' || code === 'ENOTDIR') {
      throw new UserFacingError(`cannot write ${file} (${code})`, 'choose another --output path you may write to', 1, { cause: error });
    }
    throw error;
  }
}
