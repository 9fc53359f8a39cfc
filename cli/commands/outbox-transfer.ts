/**
 * `fieldops outbox export` and `fieldops outbox import`: the unsent records of a mirror to a JSON
 * file and back (sync/outbox/transfer.ts). The export is the first step whenever a mirror cannot
 * be opened: it reads the file as it is, read-only.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { printJson, type CommandContext } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import { mirrorPath } from '../settings.js';
import { fsFailure } from '../../sync/fs-failure.js';
import { writeNewPrivateFile } from '../../sync/private-file.js';
import { toolVersion } from '../version.js';
import { clientAction, withCommonOptions } from './common.js';

type ExportOptions = { profile?: string; json?: boolean; out?: string };

export function registerOutboxTransferCommands(outbox: Command, io: CliIo): void {
  withCommonOptions(
    outbox
      .command('export')
      .description('save the unsent records (pending, rejected, in conflict; attached files included) to a JSON file')
      .option('--out <file>', 'where to write it (`-` for standard output; default fieldops-outbox-<profile>-<time>.json here); never overwritten')
      .addHelpText(
        'after',
        '\nReads the mirror as it is, without changing it: works on a mirror that cannot be opened otherwise\n' +
          '(read-only, written by a newer fieldops). `fieldops outbox import <file>` queues the records again,\n' +
          'here or on another laptop; records already queued there are skipped.',
      ),
  ).action(clientAction<ExportOptions>(io, (ctx, options) => exportOutbox(ctx, options)));

  withCommonOptions(
    outbox
      .command('import')
      .description('queue the records of a `fieldops outbox export` file (records already queued are skipped)')
      .argument('<file>', 'a file written by `fieldops outbox export`'),
  ).action(
    clientAction<{ profile?: string; json?: boolean }>(io, async (ctx, _options, [file]) => {
      const [{ openOffline }, { importExport, readExport }] = await Promise.all([import('../record/open.js'), import('../../sync/outbox/transfer.js')]);
      const document = readExport(file!);
      const stores = await openOffline(ctx);
      try {
        const server = (await stores.mirror.meta())?.server ?? null;
        if (document.server && server && document.server !== server) {
          throw new UserFacingError(`${file} holds records for ${document.server}, but this mirror is for ${server}`, 'import it with the profile logged in to that server (--profile); nothing was queued');
        }
        const outcome = await importExport(stores.outbox, document, `${stores.file}.files`);
        if (outcome.missingFiles) ctx.warn(`${outcome.missingFiles} attached file${outcome.missingFiles === 1 ? ' was' : 's were'} missing from the export: imported as rejected`);
        if (ctx.json) printJson(ctx, { file, total: outcome.total, queued: outcome.added, already_queued: outcome.total - outcome.added });
        else ctx.print(`queued ${outcome.added} of ${outcome.total} records from ${file}${outcome.total > outcome.added ? ` (${outcome.total - outcome.added} already here)` : ''}${outcome.added ? '; `fieldops push` sends them' : ''}`);
      } finally {
        await stores.close();
      }
    }),
  );
}

async function exportOutbox(ctx: CommandContext, options: ExportOptions): Promise<void> {
  const [{ openMirrorReadOnly }, { mirrorOpenFailure }, { KnexMirrorStore }, { OutboxStore }, { buildExport }] = await Promise.all([
    import('../../sync/mirror/open.js'),
    import('../../sync/mirror/open-failure.js'),
    import('../../sync/mirror/knex-store.js'),
    import('../../sync/outbox/store.js'),
    import('../../sync/outbox/transfer.js'),
  ]);
  const mirror = mirrorPath(ctx.settings, ctx.profile);
  const { knex, close } = await openMirrorReadOnly(mirror);
  let document;
  try {
    // A mirror too damaged (or too new) to say which server it is for still gives its outbox.
    const server = await new KnexMirrorStore(knex).meta().then((meta) => meta?.server ?? null, () => null);
    try {
      document = await buildExport({
        outbox: new OutboxStore(knex, ctx.now), server, profile: ctx.profile, mirror, toolVersion: toolVersion(), now: ctx.now,
        onMissingFile: (entry) => ctx.warn(`${entry.id}: the attached file's copy beside the mirror is gone; exported without it`),
      });
    } catch (error) {
      throw mirrorOpenFailure(mirror, error, { rescue: true });
    }
  } finally {
    await close();
  }
  const summary = { file: null as string | null, entries: document.entries.length, counts: document.counts, server: document.server };
  if (document.entries.length === 0 && options.out !== '-') {
    if (ctx.json) printJson(ctx, summary);
    else ctx.print(`nothing to export: ${mirror} holds no unsent records`);
    return;
  }
  const text = JSON.stringify(document, null, 2) + '\n';
  if (options.out === '-') {
    ctx.io.stdout.write(text);
    ctx.info(describe(document, 'standard output'));
    return;
  }
  const stamp = new Date(ctx.now()).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const out = path.resolve(options.out ?? `fieldops-outbox-${ctx.profile}-${stamp}.json`);
  writeNew(out, text);
  summary.file = out;
  if (ctx.json) printJson(ctx, summary);
  else ctx.print(describe(document, out));
}

function describe(document: { entries: unknown[]; counts: Record<string, number> }, where: string): string {
  const parts = Object.entries(document.counts).filter(([, n]) => n > 0).map(([status, n]) => `${n} ${status === 'conflict' ? 'in conflict' : status}`);
  return `exported ${document.entries.length} unsent record${document.entries.length === 1 ? '' : 's'}${parts.length ? ` (${parts.join(', ')})` : ''} to ${where}; \`fieldops outbox import <file>\` queues them again, here or on another laptop`;
}

/**
 * Written whole and durably, never over an existing file: an export may be the only copy of
 * unsent records (the step before deleting a broken mirror). A temporary file is written and
 * fsynced, then linked in (a link fails on an existing name, where a rename would replace it),
 * then the folder is fsynced so the new name survives a crash too.
 */
function writeNew(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeNewPrivateFile(temporary, text);
    fs.linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && fs.existsSync(file)) throw new UserFacingError(`${file} exists already`, 'choose another --out (an export is never overwritten)', 2);
    throw fsFailure(error, `write ${file}`, 'choose a folder you can write with --out');
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  try {
    syncFolder(path.dirname(file));
  } catch (error) {
    // NOTE: a few file systems cannot fsync a folder (EINVAL); the file itself is synced.
    if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw fsFailure(error, `write ${file}`, 'choose a folder you can write with --out');
  }
}

/** Makes the folder's entries durable (the new link, the temporary name's removal). */
function syncFolder(folder: string): void {
  const fd = fs.openSync(folder, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
