/** `fieldops events new`: one event recorded offline, validated, queued with its attached files in one transaction. */
import fs from 'node:fs';
import type { StagedFileBody } from '../../sync/outbox/attachments.js';
import { newId } from '../../sync/outbox/ids.js';
import { UserFacingError } from '../errors.js';
import { discardStaged, fileEntries, stageFiles, type FileToAttach } from './event-attach.js';
import { buildEvent, parseLocation, type EventInput } from './event-record.js';
import { eventTypeForRecording, type EventTypeForRecording } from './event-type.js';
import type { OfflineStores } from './open.js';

const MAX_DETAILS_BYTES = 1024 * 1024;

export interface NewEventOptions {
  type: string;
  details?: string;
  time?: string;
  location?: string;
  priority?: number;
  state?: string;
  title?: string;
  file?: string[];
  comment?: string[];
}

/** `--details '{...}'` or `--details @file.json`. */
export function readDetails(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  let text = raw;
  if (raw.startsWith('@')) {
    try {
      if (fs.statSync(raw.slice(1)).size > MAX_DETAILS_BYTES) throw new UserFacingError(`${raw.slice(1)} is larger than 1 MiB`, 'event details are a small JSON object', 2);
      text = fs.readFileSync(raw.slice(1), 'utf8');
    } catch (error) {
      if (error instanceof UserFacingError) throw error;
      throw new UserFacingError(`cannot read ${raw.slice(1)}`, 'check the path after @', 2);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UserFacingError(`--details is not JSON: ${(error as Error).message}`, `for example --details '{"species": "elephant"}' or --details @details.json`, 2);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UserFacingError('--details must be a JSON object', 'for example {"species": "elephant"}', 2);
  return value as Record<string, unknown>;
}

export function eventInput(options: NewEventOptions, details: Record<string, unknown>): EventInput {
  const input: EventInput = { details, time: options.time ?? new Date().toISOString() };
  if (options.location !== undefined) {
    const location = parseLocation(options.location);
    if (!location) throw new UserFacingError(`--location "${options.location}" is not LAT,LON in range`, 'for example --location -1.2921,36.8219', 2);
    input.location = location;
  }
  if (options.priority !== undefined) input.priority = options.priority;
  if (options.state !== undefined) input.state = options.state;
  if (options.title !== undefined) input.title = options.title;
  return input;
}

/**
 * `--file F` (repeatable) with `--comment C`: one comment for every file, or one per file in the
 * same order.
 */
export function filesToAttach(files: string[] | undefined, comments: string[] | undefined): FileToAttach[] {
  const paths = files ?? [];
  const said = comments ?? [];
  if (paths.length === 0) {
    if (said.length > 0) throw new UserFacingError('--comment describes an attached file, and no --file was given', 'add --file PATH (repeatable)', 2);
    return [];
  }
  if (said.length > 1 && said.length !== paths.length) {
    throw new UserFacingError(`${said.length} comments for ${paths.length} files`, 'give one --comment for all the files, or one per --file in the same order', 2);
  }
  return paths.map((path, i) => ({ path, comment: said.length > 1 ? said[i]! : (said[0] ?? '') }));
}

/**
 * Validates and queues the event, and one `event.file` entry per attached file (each depending on
 * the create), all in ONE outbox transaction: the event is queued with its photos or not at all.
 * The files are staged first (size-checked, copied beside the mirror); a failure removes the copies.
 */
export async function recordEvent(stores: OfflineStores, type: EventTypeForRecording, input: EventInput, files: FileToAttach[] = []): Promise<{ id: string; body: Record<string, unknown>; files: StagedFileBody[] }> {
  const id = newId();
  const { body, issues } = buildEvent(type, id, input);
  if (issues.length > 0) {
    const lines = issues.map((i) => `${i.pointer}: ${i.message}${i.hints.length ? ` (hint: ${i.hints.join('; ')})` : ''}`);
    throw new UserFacingError(`the event is not valid for ${type.value}:\n  ${lines.join('\n  ')}`, `\`fieldops types show ${type.value} --pre-render\` shows the fields and their choices`);
  }
  const staged = await stageFiles(stores, files);
  try {
    await stores.outbox.enqueue([{ id, kind: 'event.create', target: id, body }, ...fileEntries('event.file', id, id, staged)]);
  } catch (error) {
    await discardStaged(stores, staged);
    throw error;
  }
  return { id, body, files: staged };
}

export { eventTypeForRecording };
