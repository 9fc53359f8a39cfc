import fs from 'node:fs';
import path from 'node:path';
import type { ReferencedFile } from '../db/repositories/stored-files.js';
import { type DiskFileStore, relativePathOf } from './file-store.js';
import { type S3FileStore, digestFile } from './s3-store.js';

export interface MigrationProgress {
  /** Files looked at so far, and in all. */
  done: number;
  files: number;
  /** Bytes of the files looked at so far, and in all. */
  doneBytes: number;
  totalBytes: number;
}

export interface MigrationOptions {
  /** Look and compare, copy nothing. */
  dryRun: boolean;
  /** Files handled at once. */
  concurrency: number;
  onProgress?: (progress: MigrationProgress) => void;
}

export interface MigrationSummary {
  dryRun: boolean;
  /** Files in the source store. */
  files: number;
  /** Copied and verified (in a dry run: would be copied). */
  copied: number;
  /** Already in the bucket, verified. */
  skipped: number;
  failed: number;
  /** Bytes copied (in a dry run: would be copied). */
  bytes: number;
  failures: Array<{ path: string; error: string }>;
  /** Files the database refers to that the source does not hold (or holds with another size). */
  missing: Array<ReferencedFile & { problem: 'absent' | 'size' }>;
}

interface SourceFile {
  path: string;
  absolute: string;
  size: number;
}

/**
 * Copies a disk store into an S3 store (`fieldops admin migrate-files`). Resumable by
 * construction: every file is compared with the bucket first (`S3FileStore.check`: size,
 * sha256 metadata, ETag, or the bytes read back) and only copied when absent or different, so a
 * second run, or one after a crash, copies only what is not there yet. Every file is hashed on
 * the way (a damaged source file, whose bytes no longer match its name, fails and is never
 * copied), uploaded through the store's own `upload` (streamed, multipart when large,
 * verified), and checked again once in the bucket. One file's failure does not stop the others.
 */
export async function migrateFiles(source: DiskFileStore, target: S3FileStore, references: readonly ReferencedFile[], options: MigrationOptions): Promise<MigrationSummary> {
  const summary: MigrationSummary = { dryRun: options.dryRun, files: 0, copied: 0, skipped: 0, failed: 0, bytes: 0, failures: [], missing: [] };
  summary.missing = await missingReferences(source, references, options.concurrency);
  let totalBytes = 0;
  for await (const file of walk(source)) {
    summary.files += 1;
    totalBytes += file.size;
  }
  const progress: MigrationProgress = { done: 0, files: summary.files, doneBytes: 0, totalBytes };
  options.onProgress?.({ ...progress });
  await forEachLimited(walk(source), options.concurrency, async (file) => {
    try {
      const outcome = await migrateOne(target, file, options.dryRun);
      if (outcome === 'skipped') summary.skipped += 1;
      else {
        summary.copied += 1;
        summary.bytes += file.size;
      }
    } catch (error) {
      summary.failed += 1;
      summary.failures.push({ path: file.path, error: (error as Error).message });
    }
    progress.done += 1;
    progress.doneBytes += file.size;
    options.onProgress?.({ ...progress });
  });
  summary.failures.sort((a, b) => a.path.localeCompare(b.path));
  // Files stored while this ran may have joined the walk: the summary counts what was looked at.
  summary.files = progress.done;
  return summary;
}

async function migrateOne(target: S3FileStore, file: SourceFile, dryRun: boolean): Promise<'copied' | 'skipped'> {
  const digests = await digestFile(file.absolute);
  if (relativePathOf(digests.sha256) !== file.path) throw new Error(`the source file is damaged: its bytes hash to ${digests.sha256}, not to its name`);
  const before = await target.check(digests);
  if (before === 'verified') return 'skipped';
  if (dryRun) return 'copied';
  await target.upload(file.absolute, { sha256: digests.sha256, size: digests.size, contentType: 'application/octet-stream' }, { replace: before === 'different' });
  const after = await target.check(digests);
  if (after !== 'verified') throw new Error(`the bucket does not hold the bytes just copied (${after})`);
  return 'copied';
}

async function missingReferences(source: DiskFileStore, references: readonly ReferencedFile[], concurrency: number): Promise<MigrationSummary['missing']> {
  const missing: MigrationSummary['missing'] = [];
  await forEachLimited(references, concurrency * 4, async (reference) => {
    const stat = await Promise.resolve()
      .then(() => fs.promises.stat(source.absolutePath(reference.path)))
      .catch(() => null);
    if (!stat?.isFile()) missing.push({ ...reference, problem: 'absent' });
    else if (stat.size !== reference.size) missing.push({ ...reference, problem: 'size' });
  });
  return missing.sort((a, b) => a.path.localeCompare(b.path));
}

/** The stored files under `<root>/sha256/ab/cd/<sha256>`, one directory read at a time (temp files and strays are not files of the store). */
async function* walk(source: DiskFileStore): AsyncGenerator<SourceFile> {
  const names = async (dir: string) => (await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) => a.name.localeCompare(b.name));
  const top = path.join(source.root, 'sha256');
  for (const first of await names(top)) {
    if (!first.isDirectory() || !/^[0-9a-f]{2}$/.test(first.name)) continue;
    for (const second of await names(path.join(top, first.name))) {
      if (!second.isDirectory() || !/^[0-9a-f]{2}$/.test(second.name)) continue;
      for (const entry of await names(path.join(top, first.name, second.name))) {
        if (!entry.isFile() || !/^[0-9a-f]{64}$/.test(entry.name) || !entry.name.startsWith(first.name + second.name)) continue;
        const relative = relativePathOf(entry.name);
        const absolute = source.absolutePath(relative);
        const stat = await fs.promises.stat(absolute).catch(() => null);
        if (stat) yield { path: relative, absolute, size: stat.size };
      }
    }
  }
}

/** Runs `work` on every item, at most `limit` at once; `work` must not reject. */
async function forEachLimited<T>(items: Iterable<T> | AsyncIterable<T>, limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  for await (const item of items) {
    const task: Promise<void> = work(item).finally(() => running.delete(task));
    running.add(task);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
}
