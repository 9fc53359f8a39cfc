/** `fieldops migrate`: what the command does, once its options are checked (loaded on use). */
import fs from 'node:fs';
import path from 'node:path';
import { groupChoices, toChoiceRecords, type ChoiceEntry, type SchemaIssue } from '../../schema/index.js';
import type { MigrateOptions } from '../commands/migrate.js';
import { connect, openMirror, printJson, type CommandContext } from '../context.js';
import { CommandExit, EXIT, UserFacingError } from '../errors.js';
import { displayPath } from '../output/paths.js';
import { safeText } from '../../sync/safe-text.js';
import { insideDir, uniqueSlugs } from '../output/safe-names.js';
import { migrateFiles, type OfflineMigration } from './offline.js';
import { migrateRemote, type RemoteIssue, type RemoteMigration } from './remote.js';

async function existingChoices(ctx: CommandContext, file: string | undefined): Promise<{ lists: Map<string, ChoiceEntry[]>; source: string }> {
  if (file) {
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      throw new UserFacingError(`cannot read the choices in ${file}: ${(error as Error).message}`, 'give a JSON file: an array of choice records or a Django fixture', 2);
    }
    const records = toChoiceRecords(Array.isArray(raw) ? raw : (raw as { results?: unknown })?.results);
    if (records.length === 0) ctx.warn(`${file} holds no choice records`);
    return { lists: groupChoices(records), source: file };
  }
  const store = await openMirror(ctx, { create: false, optional: true });
  if (!store) return { lists: new Map(), source: 'none' };
  try {
    const records = toChoiceRecords((await store.items('choices')).map((c) => c.record));
    return { lists: groupChoices(records), source: `the mirror of profile "${ctx.profile}"` };
  } finally {
    await store.close();
  }
}

export async function offline(ctx: CommandContext, options: MigrateOptions, files: string[]) {
  const inputs = files.map((file) => {
    try {
      return { path: file, text: fs.readFileSync(file, 'utf8') };
    } catch (error) {
      throw new UserFacingError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 'check the path', 2);
    }
  });
  const choices = await existingChoices(ctx, options.choices);
  const migration = migrateFiles(inputs, choices.lists, options.baseUrl);
  const out = path.resolve(options.out!);
  fs.mkdirSync(out, { recursive: true });
  for (const file of migration.files) {
    if (file.output) fs.writeFileSync(insideDir(out, file.output), JSON.stringify(file.document, null, 2) + '\n');
  }
  const newChoices = migration.newChoices.map((c) => ({ ...c, is_active: true }));
  fs.writeFileSync(path.join(out, 'choices.new.json'), JSON.stringify(newChoices, null, 2) + '\n');
  const report = offlineReport(migration, choices.source, options.baseUrl);
  fs.writeFileSync(path.join(out, 'migration-report.json'), JSON.stringify(report, null, 2) + '\n');
  if (ctx.json) printJson(ctx, report);
  else ctx.print(renderOffline(ctx, migration, out));
  if (migration.files.some((f) => f.errors.length > 0)) throw new CommandExit(EXIT.failure);
}

const issueJson = (i: SchemaIssue | RemoteIssue) => ({ severity: i.severity, code: i.code, pointer: i.pointer, line: i.location?.line ?? null, column: i.location?.column ?? null, message: i.message, hints: i.hints ?? [] });

function offlineReport(migration: OfflineMigration, choiceSource: string, baseUrl: string) {
  return {
    base_url: baseUrl,
    existing_choices: choiceSource,
    files: migration.files.map((f) => ({
      input: displayPath(path.resolve(f.input)),
      output: f.output,
      status: f.errors.length ? 'failed' : f.warnings.length ? 'migrated with warnings' : 'migrated',
      new_choices: f.newChoices.length,
      errors: f.errors.map(issueJson),
      warnings: f.warnings.map(issueJson),
    })),
    new_choices: migration.newChoices.length,
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function issueLine(ctx: CommandContext, file: string, issue: SchemaIssue | RemoteIssue): string {
  // Issues found by validating the result point into the v2 document, not the v1 text; an
  // issue about the type itself (e.g. no such type) points nowhere.
  const where = issue.location ? `${file}:${issue.location.line}:${issue.location.column}` : issue.pointer ? `${file} (v2 document ${issue.pointer})` : file;
  const severity = issue.severity === 'error' ? ctx.out.red('error') : ctx.out.yellow('warning');
  return `  ${safeText(where)}  ${severity}  ${safeText(issue.message)}  ${ctx.out.dim(safeText(issue.code))}${(issue.hints ?? []).map((h) => `\n      ${ctx.out.dim(`hint: ${safeText(h)}`)}`).join('')}`;
}

function renderOffline(ctx: CommandContext, migration: OfflineMigration, out: string): string {
  const lines: string[] = [];
  for (const f of migration.files) {
    const name = displayPath(path.resolve(f.input));
    if (f.output) lines.push(`${ctx.out.green('✔')} ${name} → ${displayPath(path.join(out, f.output))}${f.warnings.length ? ` (${f.warnings.length} warnings)` : ''}${f.newChoices.length ? `, ${f.newChoices.length} new choices` : ''}`);
    else lines.push(`${ctx.out.red('✖')} ${name}: ${plural(f.errors.length, 'error')}, not written`);
    for (const issue of [...f.errors, ...f.warnings]) lines.push(issueLine(ctx, name, issue));
  }
  const failed = migration.files.filter((f) => f.errors.length).length;
  lines.push('');
  const choicesFile = displayPath(path.join(out, 'choices.new.json'));
  lines.push(`${migration.files.length - failed} of ${migration.files.length} migrated; ${plural(migration.newChoices.length, 'new choice')} in ${choicesFile}; report in ${displayPath(path.join(out, 'migration-report.json'))}`);
  if (migration.newChoices.length) {
    lines.push(`The new choices are not on the server yet (lint reports the documents' references to them until they are): create them with \`fieldops choices push ${choicesFile}\`, then \`fieldops sync\`.`);
  }
  return lines.join('\n');
}

export async function remote(ctx: CommandContext, options: MigrateOptions) {
  const connection = await connect(ctx);
  try {
    const { applied, results } = await migrateRemote(connection.transport, connection.session.server, options.eventType, Boolean(options.apply));
    const failed = results.filter((r) => r.errors?.length);
    if (options.out) {
      const out = path.resolve(options.out);
      fs.mkdirSync(out, { recursive: true });
      // File names come from the server's answer: a slug, and never a path outside --out.
      const names = uniqueSlugs(results.map((r) => String(r.event_type ?? '')));
      results.forEach((r, i) => {
        if (!r.errors?.length && r.v2_schema) fs.writeFileSync(insideDir(out, `${names[i]}.v2.json`), JSON.stringify(r.v2_schema, null, 2) + '\n');
      });
    }
    if (ctx.json) printJson(ctx, { server: connection.session.server, dry_run: !options.apply, applied, results });
    else ctx.print(renderRemote(ctx, results, Boolean(options.apply), applied));
    if (failed.length) throw new CommandExit(EXIT.failure);
  } finally {
    await connection.close();
  }
}

function renderRemote(ctx: CommandContext, results: RemoteMigration[], apply: boolean, applied: boolean): string {
  const lines: string[] = [];
  for (const r of results) {
    const mark = r.errors?.length ? ctx.out.red('✖') : ctx.out.green('✔');
    lines.push(`${mark} ${safeText(r.event_type)}: ${plural(r.errors?.length ?? 0, 'error')}, ${plural(r.warnings?.length ?? 0, 'warning')}`);
    for (const issue of [...(r.errors ?? []).map((i) => ({ severity: 'error', ...i })), ...(r.warnings ?? []).map((i) => ({ severity: 'warning', ...i }))]) lines.push(issueLine(ctx, r.event_type, issue));
  }
  lines.push('');
  if (!apply) lines.push('Dry run: nothing was changed on the server (add --apply to convert).');
  else lines.push(applied ? 'Applied: the event types are now version 2, and the choice lists they need were created on the server (`fieldops sync` mirrors them).' : 'Not applied: fix the errors first (all listed types are converted together or not at all).');
  return lines.join('\n');
}
