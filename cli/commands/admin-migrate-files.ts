import fs from 'node:fs';
import type { Command } from 'commander';
import type { MigrationProgress, MigrationSummary } from '../../server/storage/migrate-files.js';
import type { CliIo } from '../main.js';
import { CommandExit, EXIT, UserFacingError } from '../errors.js';
import { StatusLine } from '../output/status-line.js';
import { isTty } from '../output/style.js';
import { formatBytes } from '../output/time.js';
import { type WithRuntime, adminOptions } from './admin-runtime.js';

const HINTS = {
  unreachable: 'check FIELDOPS_S3_ENDPOINT (scheme, host, port) and that the object store is running and reachable from here',
  'no-bucket': 'create the bucket first (e.g. `aws s3 mb s3://<bucket>` or the provider\'s console), or correct the bucket name in --to',
  credentials: 'check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and FIELDOPS_S3_REGION): the key must be allowed to read and write the bucket',
  refused: 'check FIELDOPS_S3_REGION (a bucket in another region answers 301) and FIELDOPS_S3_ENDPOINT',
} as const;

/**
 * `fieldops admin migrate-files --to s3://<bucket>/<prefix>`: copies the configured disk store
 * (or `--from file:<dir>`) into a bucket, with the S3 settings the server reads
 * (FIELDOPS_S3_ENDPOINT, FIELDOPS_S3_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY). The work is
 * server/storage/migrate-files.ts; this parses, checks the user's side, and renders.
 */
export function registerMigrateFiles(admin: Command, io: CliIo, withRuntime: WithRuntime): void {
  adminOptions(admin.command('migrate-files'), { json: false })
    .description('copy the disk file store into an S3 bucket (resumable, verified); then switch FIELDOPS_FILE_STORE')
    .requiredOption('--to <s3://bucket/prefix>', 'the bucket (and key prefix) to copy into; S3 settings as for `serve`')
    .option('--from <file:dir>', 'the disk store to copy (default: FIELDOPS_FILE_STORE, else <data dir>/files)')
    .option('--dry-run', 'compare with the bucket and report what would be copied; copy nothing')
    .option('--concurrency <n>', 'files copied at once (1-32)', '4')
    .option('--json', 'a JSON summary on stdout (with the database used)')
    .action((options: { to: string; from?: string; dryRun?: boolean; concurrency: string; json?: boolean; database?: string; dataDir?: string; create?: boolean }) =>
      withRuntime(options, async (runtime, database) => {
        const concurrency = Number(options.concurrency);
        if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32) throw new UserFacingError(`--concurrency must be an integer from 1 to 32, got "${options.concurrency}"`, 'the default, 4, suits most object stores', EXIT.usage);
        const [{ parseFileStore }, { DiskFileStore }, { S3FileStore, BucketUnavailableError }, { migrateFiles }, { referencedFiles }] = await Promise.all([
          import('../../server/config.js'),
          import('../../server/storage/file-store.js'),
          import('../../server/storage/s3-store.js'),
          import('../../server/storage/migrate-files.js'),
          import('../../server/db/repositories/stored-files.js'),
        ]);
        const { dataDir } = runtime.config;
        if (!/^s3:\/\//.test(options.to)) throw new UserFacingError(`--to must name a bucket as s3://<bucket>/<prefix>, got "${options.to}"`, 'for example --to s3://fieldops-files/production', EXIT.usage);
        const to = parseFileStore(options.to, dataDir, io.env);
        const from = options.from === undefined ? runtime.config.fileStore : parseFileStore(options.from, dataDir, io.env);
        if (from.kind !== 'file' || to.kind !== 's3') {
          throw new UserFacingError(`the store to copy from is ${options.from ?? 'FIELDOPS_FILE_STORE'}, not a disk store`, 'name the disk store with --from file:<dir> (the old FIELDOPS_FILE_STORE, or <data dir>/files)', EXIT.usage);
        }
        if (!fs.statSync(from.dir, { throwIfNoEntry: false })?.isDirectory()) {
          throw new UserFacingError(`the source folder ${from.dir} does not exist`, options.from ? 'check the path given to --from' : `the disk store is FIELDOPS_FILE_STORE=file:<dir>, or <data dir>/files (FIELDOPS_DATA_DIR, here ${dataDir}); name it with --from file:<dir>`);
        }
        const source = await DiskFileStore.open(from.dir);
        const target = await S3FileStore.open(to, `${dataDir}/staging`);
        try {
          await target.probe().catch((error: unknown) => {
            if (error instanceof BucketUnavailableError) throw new UserFacingError(error.message, HINTS[error.reason], EXIT.failure, { cause: error });
            throw error;
          });
          const status = new StatusLine(io.stderr, isTty(io.stderr));
          let shown = 0;
          const onProgress = (progress: MigrationProgress) => {
            if (Date.now() - shown < 100 && progress.done < progress.files) return;
            shown = Date.now();
            status.update(`${options.dryRun ? 'comparing' : 'copying'} ${progress.done}/${progress.files} files, ${formatBytes(progress.doneBytes)} of ${formatBytes(progress.totalBytes)}`);
          };
          const summary = await migrateFiles(source, target, await referencedFiles(runtime.database.knex), { dryRun: Boolean(options.dryRun), concurrency, onProgress }).finally(() => status.clear());
          const switchTo = `FIELDOPS_FILE_STORE=${options.to}`;
          io.stdout.write(options.json ? JSON.stringify({ database, source: source.description, target: target.description, ...summary, switch: switchTo }) + '\n' : render(summary, source.description, target.description, switchTo, to.endpoint));
          if (summary.failed > 0) throw new CommandExit(EXIT.failure);
          return null;
        } finally {
          target.close();
        }
      }),
    );
}

function render(summary: MigrationSummary, from: string, to: string, switchTo: string, endpoint: string | null): string {
  const lines = [`${from} -> ${to}`];
  const verb = summary.dryRun ? 'would copy' : 'copied';
  lines.push(`${summary.files} files: ${verb} ${summary.copied} (${formatBytes(summary.bytes)}), ${summary.skipped} already in the bucket (verified), ${summary.failed} failed`);
  for (const failure of summary.failures) lines.push(`  failed: ${failure.path}: ${failure.error}`);
  if (summary.missing.length) {
    lines.push(`warning: ${summary.missing.length} file(s) the database refers to are not in the source store (their downloads fail today, and will in the bucket):`);
    for (const file of summary.missing) lines.push(`  ${file.path} (${file.problem === 'absent' ? 'absent' : `size differs from the ${file.size} bytes recorded`})`);
  }
  if (summary.dryRun) lines.push('dry run: nothing was copied; run again without --dry-run to copy.');
  else if (summary.failed > 0) lines.push('not done: run the same command again to copy what failed (what is in the bucket already is kept).');
  else {
    lines.push('done: every file of the source is in the bucket, verified. To switch the server to the bucket, set');
    lines.push(`  ${switchTo}`);
    lines.push(`  ${endpoint ? `FIELDOPS_S3_ENDPOINT=${endpoint}, ` : ''}FIELDOPS_S3_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY as for this command`);
    lines.push('and restart it (files uploaded since this run started: run this command again first, with the server stopped).');
  }
  return lines.join('\n') + '\n';
}
