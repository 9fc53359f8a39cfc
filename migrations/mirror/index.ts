import type { Knex } from 'knex';
import * as mirror from './20261121_0001_mirror.js';
import * as outbox from './20261123_0601_outbox.js';
import * as changeFeed from './20261126_0101_change_feed.js';
import * as identity from './20261127_0101_identity.js';
import * as offlineWrites from './20261128_0101_offline_writes.js';
import * as pulledTracks from './20261129_0101_pulled_tracks.js';
import * as usageSummaries from './20261130_0101_usage_summaries.js';

/**
 * The mirror's migrations, in order. Append only: a mirror migrated on a field laptop is never
 * re-migrated from an edited file; a change is a new file. Migrations import no application code.
 */
export const mirrorMigrations: ReadonlyArray<{ name: string; migration: Knex.Migration }> = [
  { name: '20261121_0001_mirror', migration: mirror },
  { name: '20261123_0601_outbox', migration: outbox },
  { name: '20261126_0101_change_feed', migration: changeFeed },
  { name: '20261127_0101_identity', migration: identity },
  { name: '20261128_0101_offline_writes', migration: offlineWrites },
  { name: '20261129_0101_pulled_tracks', migration: pulledTracks },
  { name: '20261130_0101_usage_summaries', migration: usageSummaries },
];
