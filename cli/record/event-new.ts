/** `fieldops events new`: one event recorded offline, validated, queued in its own transaction. */
import fs from 'node:fs';
import { newId } from '../../sync/outbox/ids.js';
import { UserFacingError } from '../errors.js';
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

export async function recordEvent(stores: OfflineStores, type: EventTypeForRecording, input: EventInput): Promise<{ id: string; body: Record<string, unknown> }> {
  const id = newId();
  const { body, issues } = buildEvent(type, id, input);
  if (issues.length > 0) {
    const lines = issues.map((i) => `${i.pointer}: ${i.message}${i.hints.length ? ` (hint: ${i.hints.join('; ')})` : ''}`);
    throw new UserFacingError(`the event is not valid for ${type.value}:\n  ${lines.join('\n  ')}`, `\`fieldops types show ${type.value} --pre-render\` shows the fields and their choices`);
  }
  await stores.outbox.enqueue([{ id, kind: 'event.create', target: id, body }]);
  return { id, body };
}

export { eventTypeForRecording };
