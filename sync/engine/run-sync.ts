/**
 * One sync: read every resource (conditionally, concurrently), then hand everything to the
 * store's single transaction. Nothing is written unless every resource was read; so a network
 * failure, a server error or a kill before the commit leaves the mirror exactly as it was.
 */
import { ClientFailure, failure } from '../errors.js';
import type { ApplyProgress, ChangeSummary, Checkpoint, MirrorStore, ResourceName, ResourceUpdate } from '../mirror/store.js';
import { TransportError, type Transport } from '../http.js';
import { fetchResource } from './fetch-resource.js';
import { RESOURCE_SPECS, type ResourceSpec } from './resources.js';

export type ResourceOutcome = 'unchanged' | 'changed' | 'not_offered' | 'forbidden';

export interface ResourceReport {
  resource: ResourceName;
  outcome: ResourceOutcome;
  /** Status of the first request for it. */
  status: number;
  requests: number;
  /** Response body bytes. */
  bytes: number;
  /** Items mirrored after the sync (1 for a document). */
  items: number;
  changes: ChangeSummary | null;
}

export interface SyncReport {
  server: string;
  startedAt: string;
  finishedAt: string;
  /** True when the mirror held another server's or user's data and was rebuilt. */
  reset: boolean;
  resources: ResourceReport[];
  warnings: string[];
}

export type SyncEvent =
  | { type: 'fetching'; resource: ResourceName }
  | { type: 'fetched'; resource: ResourceName; status: number; bytes: number }
  | { type: 'applying'; resource: ResourceName; done: number; total: number }
  | { type: 'committing' };

export interface SyncOptions {
  /** Authorised, retrying transport. */
  transport: Transport;
  server: string;
  username: string | null;
  store: MirrorStore;
  now?: () => number;
  onEvent?: (event: SyncEvent) => void;
  specs?: readonly ResourceSpec[];
}

export async function runSync(options: SyncOptions): Promise<SyncReport> {
  const { store, server } = options;
  const now = options.now ?? Date.now;
  const specs = options.specs ?? RESOURCE_SPECS;
  const emit = options.onEvent ?? (() => {});
  const startedAt = new Date(now()).toISOString();

  const meta = await store.meta();
  // Validators of another server (or of another user: the tracked-by schema is per identity)
  // mean nothing here: read everything afresh and replace the whole mirror.
  const reset = meta !== null && (meta.server !== server || (meta.username !== null && options.username !== null && meta.username !== options.username));
  const checkpoints = new Map<ResourceName, Checkpoint>(reset ? [] : (await store.checkpoints()).map((c) => [c.resource, c]));

  const settled = await Promise.allSettled(
    specs.map(async (spec) => {
      emit({ type: 'fetching', resource: spec.name });
      const result = await fetchResource(spec, { transport: options.transport, server, previous: checkpoints.get(spec.name) });
      emit({ type: 'fetched', resource: spec.name, status: result.status, bytes: result.bytes });
      return result;
    }),
  );
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (rejected) throw asSyncFailure(rejected.reason, server);
  const results = settled.map((s) => (s as PromiseFulfilledResult<Awaited<ReturnType<typeof fetchResource>>>).value);

  const onProgress: ApplyProgress = (p) => emit({ type: 'applying', ...p });
  emit({ type: 'committing' });
  const updates: ResourceUpdate[] = results.map((r) => r.update);
  const summaries = await store.apply({ meta: { server, username: options.username ?? meta?.username ?? null }, syncedAt: new Date(now()).toISOString(), reset, updates }, onProgress);
  const after = new Map((await store.checkpoints()).map((c) => [c.resource, c]));

  const warnings: string[] = [];
  if (reset && meta) warnings.push(`the mirror held data of ${meta.server}${meta.username ? ` (${meta.username})` : ''}; it now mirrors ${server}`);
  const resources = results.map((result, index): ResourceReport => {
    const spec = specs[index] as ResourceSpec;
    const update = result.update;
    const outcome: ResourceOutcome = update.kind === 'unavailable' ? update.status : update.kind === 'unchanged' ? 'unchanged' : 'changed';
    if (outcome === 'not_offered') warnings.push(`${server} does not offer ${spec.what} (404); kept what the mirror had`);
    if (outcome === 'forbidden') warnings.push(`not allowed to read ${spec.what} (403); kept what the mirror had`);
    return {
      resource: spec.name,
      outcome,
      status: result.status,
      requests: result.requests,
      bytes: result.bytes,
      items: after.get(spec.name)?.itemCount ?? 0,
      changes: summaries[spec.name] ?? null,
    };
  });
  return { server, startedAt, finishedAt: new Date(now()).toISOString(), reset, resources, warnings };
}

function asSyncFailure(reason: unknown, server: string): unknown {
  const untouched = 'the mirror was not changed; offline commands (`fieldops types list`, ...) still work';
  if (reason instanceof TransportError) {
    return failure('network', `cannot reach ${server}: ${reason.message}`, `${reason.hint ?? 'check the network and the server URL (`fieldops status`)'}; ${untouched}`, reason);
  }
  if (reason instanceof ClientFailure) return new ClientFailure(reason.message, [reason.hint, untouched].filter(Boolean).join('; '), reason.kind);
  return reason;
}
