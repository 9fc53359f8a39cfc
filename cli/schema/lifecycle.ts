/**
 * The work of `fieldops schema diff|show|restore|draft|publish|discard`: the command file only
 * parses options. Each function prints its result and ends with a `CommandExit` for exit 1.
 */
import { printJson, type CommandContext } from '../context.js';
import { CommandExit, EXIT, UserFacingError } from '../errors.js';
import { TransportError } from '../../sync/http.js';
import { safeText } from '../../sync/safe-text.js';
import { COMPAT_RULES, type CompatFinding } from '../../schema/compat/types.js';
import type { DiffFormat } from '../../schema/diff/index.js';
import { explainDiffLimit } from './limits.js';
import { LazySession } from './session.js';
import { parseSpec, readSchemaFile, readSource, type SchemaSource, type SourceSpec } from './sources.js';

const ALL_KINDS: ReadonlyArray<SourceSpec['kind']> = ['server', 'mirror', 'revision', 'date', 'file'];

async function withSession<T>(ctx: CommandContext, work: (session: LazySession) => Promise<T>): Promise<T> {
  const session = new LazySession(ctx);
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

/** Reads a side; a default that needed the server falls back to the mirror when the server cannot be reached. */
async function readSide(ctx: CommandContext, session: LazySession, value: string, spec: SourceSpec, fallback: boolean): Promise<SchemaSource> {
  try {
    return await readSource(spec, { value, api: session.api, mirror: session.mirror });
  } catch (error) {
    if (!(fallback && spec.kind === 'server' && error instanceof TransportError)) throw error;
    ctx.warn(`cannot reach the server (${error.message}); using the mirror's copy instead`);
    return readSource({ kind: 'mirror' }, { value, api: session.api, mirror: session.mirror });
  }
}

/**
 * The default `--from` (the revision before the server's current one) lives only in the server's
 * history: the mirror keeps the current revision alone, so there is nothing to fall back to.
 * Unreachable, it says so (error + hint) instead of the transport's failure. Null: not that case.
 */
async function readPrevious(session: LazySession, value: string, spec: SourceSpec, isDefault: boolean): Promise<SchemaSource | null> {
  if (spec.kind !== 'previous' || !isDefault) return null;
  try {
    return await readSource(spec, { value, api: session.api, mirror: session.mirror });
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    throw new UserFacingError(
      `cannot reach the server (${safeText(error.message)}): \`schema diff ${safeText(value)}\` shows the last change from the server's history, and the mirror keeps only the current revision`,
      `compare the mirror's copy with a file instead: \`fieldops schema diff ${safeText(value)} --offline --to FILE\``,
      1,
      { cause: error },
    );
  }
}

export interface DiffOptions {
  from?: string;
  to?: string;
  format?: DiffFormat;
  offline?: boolean;
}

export async function schemaDiff(ctx: CommandContext, value: string, options: DiffOptions): Promise<void> {
  const offlineDefault: SourceSpec = { kind: options.offline ? 'mirror' : 'server' };
  const to = options.to ? parseSpec(options.to, '--to', ALL_KINDS) : offlineDefault;
  const from = options.from ? parseSpec(options.from, '--from', ALL_KINDS) : to.kind === 'server' ? { kind: 'previous' as const } : offlineDefault;
  if (options.offline && [from, to].some((spec) => spec.kind !== 'mirror' && spec.kind !== 'file')) {
    throw new UserFacingError('--offline compares only the mirror and files', 'give --from/--to as `mirror` or a file path, or leave out --offline', 2);
  }
  const format: DiffFormat = options.format ?? (ctx.json ? 'json' : 'stylish');
  const { diffSchemaDocuments, renderDiff } = await import('../../schema/diff/index.js');
  const identical = await withSession(ctx, async (session) => {
    const before = await readPrevious(session, value, from, !options.from && !options.to).then(
      (previous) => previous ?? readSide(ctx, session, value, from, !options.from),
    );
    const after = await readSide(ctx, session, value, to, !options.to);
    const choices = await session.choiceLookup();
    const diff = explainDiffLimit(`"${value}": ${before.label} → ${after.label}`, () => diffSchemaDocuments(before.document, after.document, { choices }));
    const title = safeText(`${value}: ${before.label} → ${after.label}`);
    ctx.io.stdout.write(renderDiff(diff, format, { color: format === 'stylish' && ctx.out.enabled, title }));
    return diff.identical;
  });
  if (!identical) throw new CommandExit(EXIT.failure);
}

export async function schemaShow(ctx: CommandContext, value: string, options: { asOf?: string; offline?: boolean }): Promise<void> {
  const spec: SourceSpec = options.asOf ? parseSpec(options.asOf, '--as-of', ['revision', 'date']) : { kind: options.offline ? 'mirror' : 'server' };
  if (options.offline && options.asOf) throw new UserFacingError('--as-of reads the server\'s history; the mirror holds only the current revision', 'leave out --offline (or --as-of)', 2);
  await withSession(ctx, async (session) => {
    const source = await readSide(ctx, session, value, spec, !options.asOf);
    if (ctx.json) printJson(ctx, { event_type: value, revision: source.revision ?? null, source: source.label, schema: source.document });
    else printJson(ctx, source.document);
  });
}

export async function schemaRestore(ctx: CommandContext, value: string, options: { to: number; dryRun?: boolean }): Promise<void> {
  const { diffSchemaDocuments, renderDiff } = await import('../../schema/diff/index.js');
  await withSession(ctx, async (session) => {
    const api = await session.api();
    const { etag } = await api.requireCurrent(value);
    const plan = await api.restore(value, options.to, etag, true).catch(async (error) => {
      // A revision past the end is the user's to fix: say which ones exist.
      const latest = await api.latestRevision(value);
      if (options.to > latest) throw new UserFacingError(`"${value}" has no revision ${options.to}`, `its revisions are 1 to ${latest} (\`fieldops schema show ${value} --as-of N\`)`, 1);
      throw error;
    });
    const choices = await session.choiceLookup();
    const diff = explainDiffLimit(`"${value}": current → revision ${options.to}`, () => diffSchemaDocuments(plan.schema_before, plan.schema_after, { choices }));
    const title = safeText(`${value}: current (revision ${plan.current}) → revision ${options.to}`);
    if (options.dryRun) {
      if (ctx.json) printJson(ctx, { dry_run: true, event_type: value, revision: options.to, current: plan.current, would_change: plan.would_change, diff });
      else {
        ctx.io.stdout.write(renderDiff(diff, 'stylish', { color: ctx.out.enabled, title }));
        ctx.print(plan.would_change ? `dry run: restoring would write revision ${plan.current + 1}; nothing was written` : `dry run: "${safeText(value)}" already equals revision ${options.to}; nothing to write`);
      }
      return;
    }
    if (!plan.would_change) {
      if (ctx.json) printJson(ctx, { event_type: value, restored: false, revision: options.to, current: plan.current });
      else ctx.print(`"${safeText(value)}" already equals revision ${options.to}: nothing written (still revision ${plan.current})`);
      return;
    }
    await api.restore(value, options.to, etag, false);
    const now = await api.latestRevision(value);
    if (ctx.json) printJson(ctx, { event_type: value, restored: true, revision: options.to, previous: plan.current, current: now, diff });
    else {
      ctx.io.stdout.write(renderDiff(diff, 'stylish', { color: ctx.out.enabled, title }));
      ctx.print(`restored "${safeText(value)}" to the content of revision ${options.to}: now revision ${now}`);
    }
  });
}

export async function schemaDraft(ctx: CommandContext, value: string, file: string): Promise<void> {
  const document = readSchemaFile(file);
  await withSession(ctx, async (session) => {
    const draft = await (await session.api()).putDraft(value, document);
    if (ctx.json) printJson(ctx, draft);
    else ctx.print(`draft of "${safeText(value)}" stored (based on revision ${safeText(draft?.based_on_revision)}); field clients do not see it until \`fieldops schema publish ${value}\``);
  });
}

export async function schemaDiscard(ctx: CommandContext, value: string): Promise<void> {
  await withSession(ctx, async (session) => {
    await (await session.api()).discardDraft(value);
    if (ctx.json) printJson(ctx, { event_type: value, discarded: true });
    else ctx.print(`draft of "${safeText(value)}" discarded`);
  });
}

/** `--allow-breaking <rule>...` with one `--reason` for them all. */
export function allowedBreaks(rules: readonly string[] = [], reason: string | undefined): Array<{ rule: string; reason: string }> {
  for (const rule of rules) {
    if (!(COMPAT_RULES as readonly string[]).includes(rule)) throw new UserFacingError(`--allow-breaking ${rule}: no such rule`, `the rules are ${COMPAT_RULES.join(', ')}`, 2);
  }
  if (rules.length && !reason?.trim()) throw new UserFacingError('--allow-breaking needs --reason TEXT', 'say why the break is deliberate: it is recorded in the type\'s history', 2);
  if (reason !== undefined && reason.length > 500) throw new UserFacingError(`--reason is ${reason.length} characters; at most 500`, 'say it in fewer words (the history keeps it)', 2);
  if (!rules.length && reason !== undefined) throw new UserFacingError('--reason goes with --allow-breaking <rule>', 'name the rule the reason is for', 2);
  return rules.map((rule) => ({ rule, reason: reason!.trim() }));
}

export async function schemaPublish(ctx: CommandContext, value: string, options: { allowBreaking?: string[]; reason?: string; rebase?: boolean }): Promise<void> {
  const allow = allowedBreaks(options.allowBreaking, options.reason);
  const blocked = await withSession(ctx, async (session) => {
    const api = await session.api();
    const answer = await api.publish(value, allow, options.rebase === true);
    if ('findings' in answer) {
      if (ctx.json) printJson(ctx, { event_type: value, published: false, findings: answer.findings });
      else ctx.io.stdout.write(renderFindings(ctx, value, answer.findings));
      return true;
    }
    const revision = await api.latestRevision(value);
    if (ctx.json) printJson(ctx, { event_type: value, published: true, revision, allowed_breaks: allow });
    else ctx.print(`published the draft of "${safeText(value)}": now revision ${revision}`);
    return false;
  });
  if (blocked) throw new CommandExit(EXIT.failure);
}

/** The lint's stylish layout: one row per finding (severity, rule, field, affected events, message), its hint below. */
export function renderFindings(ctx: CommandContext, value: string, findings: readonly CompatFinding[]): string {
  const s = ctx.out;
  let text = `\n${s.bold(safeText(`${value}: the draft breaks events already recorded`))}\n`;
  for (const f of findings) {
    const severity = f.severity === 'error' ? s.red('error') : s.yellow('warning');
    const affected = `${f.affected_at_least ? 'at least ' : ''}${f.affected_events} event${f.affected_events === 1 ? '' : 's'}`;
    text += `  ${severity}  ${f.rule}  ${safeText(f.field ?? f.pointer)}  ${affected}  ${safeText(f.message)}\n`;
    if (f.hint) text += `    ${s.dim('hint:')} ${safeText(f.hint)}\n`;
  }
  const errors = findings.filter((f) => f.severity === 'error').length;
  text += `\n${s.red(s.bold(`✖ ${errors} breaking change${errors === 1 ? '' : 's'}: not published`))}\n`;
  text += `hint: fix the draft (\`fieldops schema draft ${value} FILE\`), or record a deliberate break: --allow-breaking <rule> --reason TEXT\n`;
  return text;
}
