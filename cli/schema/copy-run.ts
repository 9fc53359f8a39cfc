/** `fieldops schema copy`: two profiles' sessions, the plan, its table or JSON, and the writes. */
import { commandContext, connect, printJson, type CommandContext } from '../context.js';
import { UserFacingError } from '../errors.js';
import { formatTable } from '../output/table.js';
import { safeText } from '../../sync/safe-text.js';
import { SchemaApi } from './api.js';
import { applyCopy, planCopy, type CopyPlan } from './copy.js';

export interface CopyOptions {
  from: string;
  to: string;
  all?: boolean;
  dryRun?: boolean;
}

export async function schemaCopy(ctx: CommandContext, values: string[], options: CopyOptions): Promise<void> {
  if (options.all && values.length) throw new UserFacingError('give either type values or --all, not both', 'e.g. `fieldops schema copy --all --from prod --to staging`', 2);
  if (!options.all && !values.length) throw new UserFacingError('no type to copy', 'name the types, or pass --all', 2);
  if (options.from === options.to) throw new UserFacingError(`--from and --to are the same profile ("${options.from}")`, 'copy between two profiles (`fieldops login --profile NAME` adds one)', 2);
  // One session per profile (each with its own tokens, server and mirror binding).
  const sides = [commandContext(ctx.io, { profile: options.from }), commandContext(ctx.io, { profile: options.to })] as const;
  const connections: Array<Awaited<ReturnType<typeof connect>>> = [];
  try {
    for (const side of sides) connections.push(await connect(side));
    const [source, target] = connections.map((c) => new SchemaApi(c.transport, c.session.server)) as [SchemaApi, SchemaApi];
    ctx.status.update(`reading ${values.length ? values.length : 'all'} type(s) from ${options.from} and ${options.to}...`);
    const plan = await planCopy(source, target, values, Boolean(options.all));
    ctx.status.clear();
    const writes = countWrites(plan);
    if (!options.dryRun && writes > 0) {
      let step = 0;
      await applyCopy(target, plan, (what) => ctx.status.update(`writing ${what} (${++step})`));
      ctx.status.clear();
    }
    if (ctx.json) printJson(ctx, { dry_run: Boolean(options.dryRun), from: options.from, to: options.to, writes: options.dryRun ? 0 : writes, ...planJson(plan) });
    else ctx.print(renderPlan(ctx, plan, options, writes));
  } finally {
    for (const connection of connections) await connection.close();
  }
}

export function countWrites(plan: CopyPlan): number {
  return plan.categories.filter((c) => c.action === 'create').length
    + plan.choiceLists.reduce((n, l) => n + l.create.length + l.update.length, 0)
    + plan.types.filter((t) => t.action !== 'unchanged').length;
}

function planJson(plan: CopyPlan) {
  return {
    categories: plan.categories.map(({ value, action }) => ({ value, action })),
    choice_lists: plan.choiceLists.map((l) => ({ name: l.name, action: l.action, choices_created: l.create.length, choices_updated: l.update.length })),
    types: plan.types.map((t) => ({ value: t.value, action: t.action, changed: t.changed })),
  };
}

function renderPlan(ctx: CommandContext, plan: CopyPlan, options: CopyOptions, writes: number): string {
  const paint = (action: string) => (action === 'unchanged' ? ctx.out.dim(action) : action === 'create' ? ctx.out.green(action) : ctx.out.yellow(action));
  const rows: string[][] = [
    ...plan.categories.map((c) => ['category', safeText(c.value), paint(c.action), '']),
    ...plan.choiceLists.map((l) => ['choice list', safeText(l.name), paint(l.action), l.action === 'unchanged' ? '' : `${l.create.length} new, ${l.update.length} changed choices`]),
    ...plan.types.map((t) => ['event type', safeText(t.value), paint(t.action), safeText(t.changed.join(', '))]),
  ];
  const table = formatTable(['kind', 'name', 'action', 'details'], rows);
  const verb = options.dryRun ? `dry run: would write ${writes} change${writes === 1 ? '' : 's'}; nothing was written` : writes === 0 ? 'unchanged: nothing to write' : `${writes} change${writes === 1 ? '' : 's'} written`;
  return `${table}\n${verb} (${safeText(options.from)} → ${safeText(options.to)})`;
}
