import { Option, type Command } from 'commander';
import type { ChoiceShape } from '../../schema/index.js';
import { openMirror, printJson, type CommandContext } from '../context.js';
import type { CliIo } from '../main.js';
import type { TypeKind } from '../offline/types.js';
import { safeText } from '../../sync/safe-text.js';
import { formatTable } from '../output/table.js';
import { clientAction, withCommonOptions } from './common.js';

const kindOption = () => new Option('--kind <kind>', 'patrol or event types only').choices(['patrol', 'event']);
const kindsOf = (kind: string | undefined): TypeKind[] => (kind ? [kind as TypeKind] : ['patrol', 'event']);

export function registerTypesCommands(program: Command, io: CliIo): void {
  const types = program.command('types').description('patrol types and v2 event types from the mirror (offline)');

  withCommonOptions(types.command('list').description('list the mirrored types (active ones unless --all)'))
    .addOption(kindOption())
    .option('--all', 'include deactivated types (flagged)')
    .action(
      clientAction<{ profile?: string; json?: boolean; kind?: string; all?: boolean }>(io, async (ctx, options) => {
        const store = await openMirror(ctx, { create: false });
        const { fieldNames, listTypes, schemaOf } = await import('../offline/types.js');
        try {
          const entries = await listTypes(store, kindsOf(options.kind));
          const shown = options.all ? entries : entries.filter((e) => e.item.isActive);
          if (ctx.json) {
            printJson(ctx, shown.map(({ kind, item }) => ({ kind, ...withoutSchema(item.record), fields: fieldNames(schemaOf(item)).length })));
            return;
          }
          if (shown.length === 0) ctx.print(entries.length ? 'No active types (use --all to see deactivated ones).' : 'No types in the mirror.');
          else {
            const rows = shown.map(({ kind, item }) => [
              kind,
              // Server text: no control characters or escape sequences reach the terminal.
              safeText(item.value),
              safeText(item.display),
              item.isActive ? 'yes' : ctx.out.yellow('no (deactivated)'),
              safeText(item.record.default_priority),
              String(fieldNames(schemaOf(item)).length),
            ]);
            ctx.print(formatTable(['kind', 'value', 'display', 'active', 'priority', 'fields'], rows, { right: [4, 5] }));
          }
          const hidden = entries.length - shown.length;
          if (hidden > 0) ctx.info(`${hidden} deactivated type${hidden === 1 ? '' : 's'} not shown (--all shows them)`);
        } finally {
          await store.close();
        }
      }),
    );

  withCommonOptions(types.command('show').description('one type from the mirror: details, its schema, or its pre-rendered schema').argument('<value>', 'the type\'s value'))
    .addOption(kindOption())
    .option('--schema', 'print the stored {json, ui} schema')
    .option('--pre-render', 'print the schema with choice lists resolved from the mirrored choices')
    .addOption(new Option('--shape <shape>', 'shape of resolved choices (with --pre-render)').choices(['anyOf', 'oneOf', 'enum']).default('anyOf'))
    .action(
      clientAction<{ profile?: string; json?: boolean; kind?: string; schema?: boolean; preRender?: boolean; shape: ChoiceShape }>(io, async (ctx, options, [value]) => {
        const store = await openMirror(ctx, { create: false });
        const { findType, preRenderFromMirror, schemaOf } = await import('../offline/types.js');
        try {
          const { kind, item } = await findType(store, value!, kindsOf(options.kind));
          if (!item.isActive) ctx.warn(`${kind} type "${safeText(item.value)}" is deactivated on the server`);
          if (options.preRender) {
            const { document, issues } = await preRenderFromMirror(store, schemaOf(item), options.shape);
            for (const issue of issues) ctx.warn(`${issue.pointer}: ${issue.message} (${issue.hints.join(' ')})`);
            printJson(ctx, document);
          } else if (options.schema) {
            printJson(ctx, schemaOf(item));
          } else if (ctx.json) {
            printJson(ctx, { kind, ...item.record });
          } else {
            ctx.print(describe(ctx, kind, item.record));
          }
        } finally {
          await store.close();
        }
      }),
    );
}

function withoutSchema(record: Record<string, unknown>): Record<string, unknown> {
  const { schema: _schema, ...rest } = record;
  return rest;
}

function describe(ctx: CommandContext, kind: TypeKind, record: Record<string, any>): string {
  // Every value is server text: safeText keeps control characters off the terminal.
  const lines: Array<[string, string]> = [
    ['kind', `${kind} type`],
    ['value', safeText(record.value)],
    ['display', safeText(record.display)],
    ['active', record.is_active === false ? ctx.out.yellow('no (deactivated)') : 'yes'],
    ['priority', safeText(record.default_priority)],
    ['ordernum', safeText(record.ordernum)],
  ];
  if (kind === 'event') lines.push(['category', safeText(typeof record.category === 'object' ? record.category?.value : record.category)], ['geometry', safeText(record.geometry_type)]);
  lines.push(['updated', safeText(record.updated_at)], ['id', safeText(record.id)]);
  const properties = record.schema?.json?.properties ?? {};
  const fields = Object.entries<any>(properties).map(([name, p]) => safeText(`${name}${p?.title ? ` (${p.title})` : ''}: ${typeof p?.type === 'string' ? p.type : 'any'}`));
  let text = lines.map(([k, v]) => `${k.padEnd(9)} ${v}`).join('\n') + '\n';
  text += fields.length ? `fields:\n${fields.map((f) => `  ${f}`).join('\n')}\n` : 'fields:   none (empty schema)\n';
  return text;
}
