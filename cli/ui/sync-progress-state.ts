/**
 * The sync display's state, folded from the engine's events (pure: the Ink view and the plain
 * lines both read it; the view itself holds no state).
 */
import type { SyncEvent } from '../../sync/engine/run-sync.js';
import type { ResourceName } from '../../sync/mirror/store.js';

export interface ResourceLine {
  resource: ResourceName;
  state: 'waiting' | 'fetching' | 'fetched';
  status?: number;
  bytes?: number;
}

export interface SyncProgressState {
  resources: ResourceLine[];
  applying: { resource: ResourceName; done: number; total: number } | null;
  committing: boolean;
}

export function initialSyncProgress(resources: readonly ResourceName[]): SyncProgressState {
  return { resources: resources.map((resource) => ({ resource, state: 'waiting' })), applying: null, committing: false };
}

export function reduceSyncProgress(state: SyncProgressState, event: SyncEvent): SyncProgressState {
  switch (event.type) {
    case 'fetching':
      return { ...state, resources: state.resources.map((r) => (r.resource === event.resource ? { ...r, state: 'fetching' } : r)) };
    case 'fetched':
      return {
        ...state,
        resources: state.resources.map((r) => (r.resource === event.resource ? { ...r, state: 'fetched', status: event.status, bytes: event.bytes } : r)),
      };
    case 'committing':
      return { ...state, committing: true };
    case 'applying':
      return { ...state, applying: { resource: event.resource, done: event.done, total: event.total } };
  }
}
