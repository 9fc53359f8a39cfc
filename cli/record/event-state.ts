/**
 * `fieldops events state <id> <state>`: an offline change of an event's state, recorded with its
 * base (sync/outbox/bases.ts): the latest earlier entry of the event (chained offline edits, or
 * the create of an event recorded here), else the revision pulled. The server merges it with what
 * changed there since; an event the laptop knows no version of is refused (pull first).
 */
import { pulledBase, recordBase } from '../../sync/outbox/bases.js';
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
  const base = await recordBase(stores.outbox, 'event', target!, pulledBase(pulled.find((p: { id: string }) => p.id === target)));
  const id = newId();
  await stores.outbox.enqueue([{ id, kind: 'event.update', target: target!, dependsOn: base.dependsOn, baseEntry: base.baseEntry, baseRevision: base.baseRevision, baseEtag: base.baseEtag, body: { state } }]);
  return { id, event: target!, basedOn: base.basedOn };
}
