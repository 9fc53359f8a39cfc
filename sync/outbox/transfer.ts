/**
 * Moving unsent records out of a mirror and into another: `fieldops outbox export` writes every
 * pending, rejected and in-conflict entry to one JSON document (files attached to patrols
 * included, base64), `fieldops outbox import` queues them again, here or on another laptop.
 *
 * Contract:
 * - the export reads the outbox as it is (read-only, no migration), so it works on a mirror that
 *   cannot be opened for writing (read-only, written by a newer fieldops, locked schema);
 * - entries keep their ids, order, status, reason and server version: importing is idempotent
 *   (ids already queued are skipped) and a create still meets a 409, never a duplicate, if the
 *   record reached the server from the first laptop;
 * - the import is one transaction: every new entry or none; a document that is not a valid
 *   export (or is for another server) is refused before anything is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { failure } from '../errors.js';
import { fsFailure } from '../fs-failure.js';
import { storeAttachment } from './attachments.js';
import { contentDigest } from './ids.js';
import { OUTBOX_KINDS, type OutboxEntry, type OutboxStatus } from './model.js';
import type { ImportedEntry, OutboxStore } from './store.js';

export const EXPORT_FORMAT = 'fieldops-outbox';
export const EXPORT_VERSION = 1;
export const UNSENT: OutboxStatus[] = ['pending', 'rejected', 'conflict'];
/** Larger exports are refused on import (the document is read whole). */
export const MAX_EXPORT_BYTES = 256 * 1024 * 1024;

export interface ExportedFile {
  filename: string;
  sha256: string;
  content_base64: string;
}

export interface ExportedEntry {
  id: string;
  kind: OutboxEntry['kind'];
  target: string | null;
  depends_on: string | null;
  base_etag: string | null;
  batch_key: string | null;
  status: OutboxStatus;
  reason: string | null;
  theirs: unknown;
  source: string | null;
  recorded_at: string;
  /** Who recorded it and the server it is for (absent in exports from before that was kept). */
  user_id?: string | null;
  username?: string | null;
  server?: string | null;
  body: unknown;
  /** What an update was based on (issue 26 §2; absent in exports from before bases were kept). */
  base_revision?: number | null;
  base_entry?: string | null;
  /** For `patrol.file`: the attached bytes (null when the copy beside the mirror is gone). */
  file?: ExportedFile | null;
}

export interface OutboxExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exported_at: string;
  fieldops_version: string;
  profile: string;
  /** The server the records are for (from the mirror), null when the mirror does not say. */
  server: string | null;
  mirror: string;
  counts: Record<'pending' | 'rejected' | 'conflict', number>;
  entries: ExportedEntry[];
}

export interface ExportInput {
  outbox: OutboxStore;
  server: string | null;
  profile: string;
  mirror: string;
  toolVersion: string;
  now: () => number;
  /** Called for an attached file whose copy is gone (the entry is exported without it). */
  onMissingFile?: (entry: OutboxEntry) => void;
}

export async function buildExport(input: ExportInput): Promise<OutboxExport> {
  const entries = await input.outbox.list({ status: UNSENT });
  const counts = { pending: 0, rejected: 0, conflict: 0 };
  const exported = entries.map((entry): ExportedEntry => {
    counts[entry.status as keyof typeof counts]++;
    const out: ExportedEntry = {
      id: entry.id, kind: entry.kind, target: entry.target, depends_on: entry.dependsOn, base_etag: entry.baseEtag, batch_key: entry.batchKey,
      status: entry.status, reason: entry.reason, theirs: entry.theirs, source: entry.source, recorded_at: entry.recordedAt,
      user_id: entry.userId ?? null, username: entry.username ?? null, server: entry.server ?? null, body: entry.body,
      base_revision: entry.baseRevision ?? null, base_entry: entry.baseEntry ?? null,
    };
    if (entry.kind === 'patrol.file' || entry.kind === 'event.file') out.file = readAttachment(entry, input.onMissingFile);
    return out;
  });
  return {
    format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: new Date(input.now()).toISOString(), fieldops_version: input.toolVersion,
    profile: input.profile, server: input.server, mirror: input.mirror, counts, entries: exported,
  };
}

function readAttachment(entry: OutboxEntry, onMissing?: (entry: OutboxEntry) => void): ExportedFile | null {
  const body = entry.body as { stored?: string; filename?: string };
  try {
    const bytes = fs.readFileSync(String(body.stored));
    return { filename: String(body.filename ?? path.basename(String(body.stored))), sha256: contentDigest(bytes), content_base64: bytes.toString('base64') };
  } catch {
    onMissing?.(entry);
    return null;
  }
}

/** Reads and checks an export document; a `ClientFailure` saying what is wrong otherwise. */
export function readExport(file: string): OutboxExport {
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (stat.size > MAX_EXPORT_BYTES) throw failure('usage', `${file} is larger than ${MAX_EXPORT_BYTES / 1024 / 1024} MiB`, 'is it an export of `fieldops outbox export`?');
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw failure('usage', `cannot read ${file}: it does not exist`, 'check the path');
    throw fsFailure(error, `read ${file}`, 'check the path and its permissions');
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw failure('input', `${file} is not JSON`, 'give a file written by `fieldops outbox export`');
  }
  const problem = exportProblem(document);
  if (problem) throw failure('input', `${file} is not a fieldops outbox export: ${problem}`, 'give a file written by `fieldops outbox export` (unchanged)');
  return document as OutboxExport;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optionalString = (v: unknown) => v === null || v === undefined || typeof v === 'string';
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function exportProblem(document: unknown): string | null {
  if (!isObject(document) || document.format !== EXPORT_FORMAT) return `no "format": "${EXPORT_FORMAT}"`;
  if (document.version !== EXPORT_VERSION) return `version ${JSON.stringify(document.version)} (this fieldops reads version ${EXPORT_VERSION}; a newer fieldops wrote it?)`;
  if (!optionalString(document.server) || !Array.isArray(document.entries)) return 'no list of entries';
  const seen = new Set<string>();
  for (const [index, entry] of document.entries.entries()) {
    const at = `entry ${index + 1}`;
    if (!isObject(entry) || typeof entry.id !== 'string' || !ID.test(entry.id)) return `${at} has no valid id`;
    if (seen.has(entry.id)) return `${at} repeats the id ${entry.id}`;
    seen.add(entry.id);
    if (!(OUTBOX_KINDS as readonly unknown[]).includes(entry.kind)) return `${at} has an unknown kind ${JSON.stringify(entry.kind)}`;
    if (!(UNSENT as unknown[]).includes(entry.status)) return `${at} has the status ${JSON.stringify(entry.status)} (only unsent records are exported)`;
    for (const key of ['target', 'depends_on', 'base_etag', 'batch_key', 'reason', 'source', 'user_id', 'username', 'server', 'base_entry'] as const) if (!optionalString(entry[key])) return `${at}: ${key} is not a string`;
    if (entry.base_revision !== undefined && entry.base_revision !== null && !Number.isSafeInteger(entry.base_revision)) return `${at}: base_revision is not an integer`;
    if (typeof entry.recorded_at !== 'string' || !isObject(entry.body)) return `${at} has no recorded_at or body`;
    if (entry.kind === 'patrol.file' || entry.kind === 'event.file') {
      const file = entry.file;
      if (file !== null && file !== undefined && (!isObject(file) || typeof file.content_base64 !== 'string' || typeof file.sha256 !== 'string')) return `${at}: file is not {filename, sha256, content_base64}`;
    }
  }
  return null;
}

export interface ImportOutcome {
  total: number;
  /** Newly queued (the others were queued here already). */
  added: number;
  /** Attached files missing from the export: their entries are imported as rejected. */
  missingFiles: number;
}

/**
 * Queues the export's entries in `outbox`. Attached files are stored (content-addressed) in
 * `filesDir` first, checked against their digest, and the entries point at those copies.
 */
export async function importExport(outbox: OutboxStore, document: OutboxExport, filesDir: string): Promise<ImportOutcome> {
  let missingFiles = 0;
  const entries: ImportedEntry[] = document.entries.map((e) => {
    let body = e.body;
    let status = e.status;
    let reason = e.reason;
    if (e.kind === 'patrol.file' || e.kind === 'event.file') {
      if (e.file) body = { ...(e.body as Record<string, unknown>), stored: storeExported(e.file, filesDir) };
      else {
        missingFiles++;
        status = 'rejected';
        reason = 'the attached file was missing from the export';
      }
    }
    return {
      id: e.id.toLowerCase(), kind: e.kind, target: e.target ?? null, dependsOn: e.depends_on ?? null, body, baseEtag: e.base_etag ?? null,
      batchKey: e.batch_key ?? null, source: e.source ?? null, status, reason: reason ?? null, theirs: e.theirs ?? null, recordedAt: e.recorded_at,
      userId: e.user_id ?? null, username: e.username ?? null, server: e.server ?? null,
      baseRevision: e.base_revision ?? null, baseEntry: e.base_entry?.toLowerCase() ?? null,
    };
  });
  const added = await outbox.importEntries(entries);
  return { total: entries.length, added, missingFiles };
}

/** Stores an exported file's bytes beside the mirror, once they match their digest. */
function storeExported(file: ExportedFile, filesDir: string): string {
  const bytes = Buffer.from(file.content_base64, 'base64');
  if (contentDigest(bytes) !== file.sha256) throw failure('input', `an attached file (${file.filename}) does not match its digest`, 'the export was changed or damaged; export it again');
  return storeAttachment(filesDir, bytes, { doing: `store an attached file in ${filesDir}`, hint: 'check that folder (beside the mirror) can be written' });
}
