import type { Command } from 'commander';
import { openMirror, printJson } from '../context.js';
import type { CliIo } from '../main.js';
import { safeText } from '../../sync/safe-text.js';
import { formatTable } from '../output/table.js';
import { clientAction, withCommonOptions } from './common.js';

interface Leader {
  id?: string;
  name?: string;
  subject_type?: string;
  subject_subtype?: string;
}

export function registerTrackedByCommand(program: Command, io: CliIo): void {
  withCommonOptions(program.command('trackedby').description('who can lead a patrol segment, from the mirror (offline)')).action(
    clientAction(io, async (ctx) => {
      const store = await openMirror(ctx, { create: false });
      try {
        const document = (await store.document('trackedby')) as { properties?: { leader?: { enum?: Leader[] } } } | null;
        if (!document) {
          ctx.print('The mirror holds no tracked-by schema yet (run `fieldops sync`).');
          return;
        }
        if (ctx.json) return printJson(ctx, document);
        const leaders = document.properties?.leader?.enum ?? [];
        if (leaders.length === 0) ctx.print('Nobody can be selected as a segment leader.');
        else ctx.print(formatTable(['name', 'type', 'subtype', 'id'], leaders.map((l) => [safeText(l.name), safeText(l.subject_type), safeText(l.subject_subtype), safeText(l.id)])));
      } finally {
        await store.close();
      }
    }),
  );
}
