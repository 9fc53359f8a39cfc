import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { type RequestContext, actingUser, requirePermission } from '../context.js';
import { InputError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Store } from '../ports.js';
import { MESSAGE_STATUSES, MESSAGE_TYPES, type MessageFilter, type MessageRecord, type MessageStatus, type MessageType, type MessageView } from './ports.js';

/** Longest message text (characters) and `additional` (bytes of JSON). */
export const MAX_TEXT = 4000;
export const MAX_ADDITIONAL_BYTES = 16 * 1024;
/** Most subjects one list filter names. */
export const MAX_FILTER_SUBJECTS = 100;

/** Most ids in one bulk read. */
export const MAX_BULK_IDS = 1000;

/** Where a message goes or comes from, as the request names it (query string of the messaging URL). */
export interface MessageTarget {
  subjectId?: string;
  sourceId?: string;
  manufacturerId?: string;
  providerKey?: string;
}

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body => typeof value === 'object' && value !== null && !Array.isArray(value);
const idOf = (party: unknown): string | undefined => (typeof party === 'string' ? party : isObject(party) && typeof party.id === 'string' ? party.id : undefined);
const isSubjectParty = (party: unknown) => isObject(party) && typeof party.id === 'string' && (party.content_type === undefined || party.content_type === 'observations.subject');

/**
 * Messages to and from subjects through their devices (sources), with read state (issue 27 §5).
 * Knows no HTTP: the realtime channel is fed from the HTTP layer after a successful write.
 */
export class MessageService {
  constructor(protected readonly deps: { store: Store; clock: Clock }) {}

  async list(ctx: RequestContext, filter: MessageFilter, offset: number, limit: number): Promise<{ total: number; items: MessageView[] }> {
    const principal = requirePermission(ctx, 'view_message');
    if (filter.subjectIds !== undefined && filter.subjectIds.length > MAX_FILTER_SUBJECTS) throw InputError.field('subject_id', 'too_many', `At most ${MAX_FILTER_SUBJECTS} subjects in one filter.`);
    // An id that cannot exist matches nothing (as an unknown one does).
    if (filter.sourceId !== undefined && !isUuid(filter.sourceId)) return { total: 0, items: [] };
    const subjectIds = filter.subjectIds?.filter(isUuid).map((id) => id.toLowerCase());
    if (subjectIds !== undefined && subjectIds.length === 0) return { total: 0, items: [] };
    return this.deps.store.repos.messages.list(principal.tenantId, { ...filter, subjectIds }, offset, limit);
  }

  async get(ctx: RequestContext, id: string): Promise<MessageView> {
    const principal = requirePermission(ctx, 'view_message');
    const message = isUuid(id) ? await this.deps.store.repos.messages.find(principal.tenantId, id.toLowerCase()) : null;
    if (!message) throw new NotFoundError('No such message.');
    return message;
  }

  /**
   * A message to a subject (`outbox`: the web app posts to the subject's messaging URL) or from
   * one (`inbox`: a device's message relayed by an integration). The subject and source come
   * from the target (query) first, then from `receiver`/`sender` in the body; a source alone
   * finds its subject through its assignment at `message_time`, a subject alone its source.
   */
  async send(ctx: RequestContext, target: MessageTarget, body: Body): Promise<MessageView> {
    const principal = requirePermission(ctx, 'add_message');
    const user = actingUser(principal);
    const { messages } = this.deps.store.repos;
    const now = this.deps.clock.now();
    const messageType = readType(body.message_type, user !== null);
    const text = body.text;
    if (typeof text !== 'string' || !text.trim()) throw InputError.field('text', 'required', 'A message has a text.');
    if (text.length > MAX_TEXT) throw InputError.field('text', 'too_long', `A message text is at most ${MAX_TEXT} characters.`);
    const messageTime = readTime(body.message_time, now);
    const location = readLocation(body.device_location);
    const additional = body.additional ?? {};
    if (!isObject(additional)) throw InputError.field('additional', 'invalid', 'additional is an object.');
    if (Buffer.byteLength(JSON.stringify(additional)) > MAX_ADDITIONAL_BYTES) throw InputError.field('additional', 'too_long', `additional is at most ${MAX_ADDITIONAL_BYTES} bytes of JSON.`);
    const status = body.status ?? (messageType === 'outbox' ? 'pending' : 'received');
    if (!MESSAGE_STATUSES.includes(status as MessageStatus)) throw InputError.field('status', 'invalid', `status is one of ${MESSAGE_STATUSES.join(', ')}.`);
    if (body.read !== undefined && typeof body.read !== 'boolean') throw InputError.field('read', 'invalid', 'read is true or false.');
    const read = (body.read as boolean | undefined) ?? messageType === 'outbox';

    // The subject's side of the message: the sender of an inbox message, the receiver of an outbox one.
    const [near, far] = messageType === 'inbox' ? [body.sender, body.receiver] : [body.receiver, body.sender];
    let subjectId = target.subjectId ?? idOf(near) ?? (isSubjectParty(far) ? idOf(far) : undefined);
    let sourceId: string | null = null;
    const byDevice = target.sourceId !== undefined || target.manufacturerId !== undefined || (isObject(body) && typeof body.device === 'string');
    if (byDevice) {
      const sourceRef = target.sourceId ?? (target.manufacturerId === undefined ? (body.device as string) : undefined);
      if (sourceRef !== undefined && !isUuid(sourceRef)) throw InputError.field('source_id', 'not_found', 'No such source.');
      const device = await messages.findDevice(principal.tenantId, { sourceId: sourceRef, manufacturerId: target.manufacturerId, providerKey: target.providerKey }, messageTime);
      if (device === 'ambiguous') throw InputError.field('manufacturer_id', 'ambiguous', 'More than one source has this manufacturer id.', ['Name the provider with provider_key.']);
      if (!device) throw InputError.field(target.manufacturerId !== undefined ? 'manufacturer_id' : 'source_id', 'not_found', 'No such source.');
      sourceId = device.sourceId;
      subjectId ??= device.subjectId ?? undefined;
    }
    if (subjectId !== undefined) {
      if (!isUuid(subjectId) || !(await messages.subjectExists(principal.tenantId, subjectId))) throw InputError.field('subject_id', 'not_found', 'No such subject.');
      sourceId ??= await messages.sourceOfSubject(principal.tenantId, subjectId, messageTime);
    }
    if (subjectId === undefined && sourceId === null) {
      throw InputError.field('subject_id', 'required', 'Say whom the message is to or from.', ['Send subject_id or source_id (or manufacturer_id) in the query, or the subject as receiver (outbox) or sender (inbox).']);
    }
    const record: MessageRecord = {
      id: randomUUID(), tenantId: principal.tenantId, messageType, subjectId: subjectId ?? null, sourceId, userId: user?.id ?? null, text, status: status as MessageStatus,
      latitude: location?.latitude ?? null, longitude: location?.longitude ?? null, messageTime, read, additional, createdAt: now, updatedAt: now,
    };
    // NOTE: one-statement writes still take a transaction: a keyed request's Idempotency-Key
    // commits in its write's transaction (domain/idempotency/claim-hook.ts).
    return this.deps.store.transaction(async (repos) => {
      await repos.messages.insert(record);
      return (await repos.messages.find(principal.tenantId, record.id))!;
    });
  }

  /** Marks messages read (or unread): the web app's bulk read. Unknown ids are skipped. */
  async setRead(ctx: RequestContext, ids: readonly string[], read: boolean): Promise<string[]> {
    const principal = requirePermission(ctx, 'change_message');
    if (ids.length > MAX_BULK_IDS) throw InputError.field('ids', 'too_long', `At most ${MAX_BULK_IDS} ids at once.`);
    const valid = [...new Set(ids.filter(isUuid))];
    return this.deps.store.transaction((repos) => repos.messages.setRead(principal.tenantId, valid, read, this.deps.clock.now()));
  }

  async setOneRead(ctx: RequestContext, id: string, read: unknown): Promise<MessageView> {
    const principal = requirePermission(ctx, 'change_message');
    if (typeof read !== 'boolean') throw InputError.field('read', 'required', 'read is true or false.');
    if (!isUuid(id)) throw new NotFoundError('No such message.');
    return this.deps.store.transaction(async (repos) => {
      if (!(await repos.messages.setRead(principal.tenantId, [id.toLowerCase()], read, this.deps.clock.now())).length) throw new NotFoundError('No such message.');
      return (await repos.messages.find(principal.tenantId, id))!;
    });
  }

  async remove(ctx: RequestContext, id: string): Promise<void> {
    const principal = requirePermission(ctx, 'delete_message');
    if (!isUuid(id)) throw new NotFoundError('No such message.');
    // NOTE: refused inside the transaction: a committed one would commit a keyed request's
    // Idempotency-Key with it, and the retry of this 404 would be replayed as a 204.
    await this.deps.store.transaction(async (repos) => {
      if (!(await repos.messages.remove(principal.tenantId, id.toLowerCase()))) throw new NotFoundError('No such message.');
    });
  }
}

/** An explicit type wins; otherwise a user's message goes out, an application's comes in. */
function readType(value: unknown, byUser: boolean): MessageType {
  if (value === undefined || value === null || value === '') return byUser ? 'outbox' : 'inbox';
  if (!MESSAGE_TYPES.includes(value as MessageType)) throw InputError.field('message_type', 'invalid', 'message_type is inbox or outbox.');
  return value as MessageType;
}

function readTime(value: unknown, now: number): number {
  if (value === undefined || value === null || value === '') return now;
  const at = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(at)) throw InputError.field('message_time', 'invalid', 'message_time is an ISO 8601 date-time.', ['For example 2026-11-20T10:00:00+00:00.']);
  return at;
}

function readLocation(value: unknown): { latitude: number; longitude: number } | null {
  if (value === undefined || value === null) return null;
  const latitude = isObject(value) ? Number(value.latitude) : NaN;
  const longitude = isObject(value) ? Number(value.longitude) : NaN;
  if (!isObject(value) || value.latitude === null || value.longitude === null || !(Math.abs(latitude) <= 90) || !(Math.abs(longitude) <= 180)) {
    throw InputError.field('device_location', 'invalid', 'device_location is {latitude, longitude} in degrees, or null.');
  }
  return { latitude, longitude };
}
