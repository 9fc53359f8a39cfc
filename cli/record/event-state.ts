/**
 * `fieldops events state <id> <state>`: an offline change of an event's state. A pulled event is
 * changed with `If-Match` on the version pulled (a 412 at push time is a conflict); an event
 * recorded here and not yet pushed is changed after its create.
 */
import { newId } from '../../sync/outbox/ids.js';
import { UserFacingError } from '../errors.js';
import { EVENT_STATES } from './event-record.js';
import type { OfflineStores } from './open.js';

export async function changeEventState(stores: OfflineStores, ref: string, state: string) {
  if (!(EVENT_STATES as readonly string[]).includes(state)) throw new UserFacingError(`state "${state}" is not one of ${EVENT_STATES.join(', ')}`, undefined, 2);
  const creates = (await stores.outbox.findByPrefix(ref)).filter((e) => e.kind === 'event.create' && (e.status === 'pending' || e.status === 'sent'));
  const prefix = ref.toLowerCase().replace(/[%_]/g, '');
  const pulled = await stores.outbox.knex('pulled_events').where('id', 'like', `${prefix}%`).limit(2);
  const candidates = new Set([...creates.map((e) => e.id), ...pulled.map((p: { id: string }) => p.id)]);
  if (candidates.size !== 1 || (ref.length < 4 && !candidates.has(ref))) {
    throw new UserFacingError(candidates.size ? `"${ref}" matches ${candidates.size} events` : `no event "${ref}" on this laptop`, '`fieldops events list` shows the events pulled and recorded here (give more of the id)', 2);
  }
  const [target] = [...candidates];
  const create = creates.find((e) => e.id === target && e.status === 'pending') ?? null;
  const row = pulled.find((p: { id: string }) => p.id === target) as { etag: string | null } | undefined;
  const id = newId();
  await stores.outbox.enqueue([{ id, kind: 'event.update', target: target!, dependsOn: create?.id ?? null, baseEtag: create ? null : row?.etag ?? null, body: { state } }]);
  return { id, event: target!, basedOn: create ? 'queued create' : row?.etag ? 'pulled version' : 'none' };
}
