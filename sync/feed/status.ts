/**
 * What `fieldops status` says about the feed (offline): the mode, the scopes asked for, and per
 * granted key the server's count at the last checkpoint beside the records held now.
 */
import type { Knex } from 'knex';
import { readFeedState } from './state.js';
import { heldMembers } from './sums.js';

export interface FeedStatus {
  /** 'feed', 'fallback' (the server has no feed), or 'none' (never pulled through it). */
  mode: 'feed' | 'fallback' | 'none';
  scopes: string[];
  checkpoint_at: string | null;
  per_scope: Array<{ scope: string; server: number | null; local: number }>;
}

export async function feedStatus(knex: Knex): Promise<FeedStatus | null> {
  if (!(await knex.schema.hasTable('feed_state'))) return null;
  const state = await readFeedState(knex);
  if (state.serverHasFeed === null && state.keys === null) return null;
  const checkpoint = state.checkpoint as (typeof state.checkpoint & { checked_at?: string }) | null;
  const keys = [...new Set([...(checkpoint?.scopes.map((s) => s.key) ?? []), ...state.granted])].sort();
  const held = await heldMembers(knex, keys);
  return {
    mode: state.serverHasFeed === '0' ? 'fallback' : state.cursor ? 'feed' : 'none',
    scopes: state.scopes ?? [],
    checkpoint_at: checkpoint?.checked_at ?? null,
    per_scope: keys.map((scope) => ({ scope, server: checkpoint?.scopes.find((s) => s.key === scope)?.count ?? null, local: held.get(scope)?.length ?? 0 })),
  };
}
