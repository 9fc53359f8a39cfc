import type { Knex } from 'knex';
import * as foundation from './20261121_0001_foundation.js';
import * as catalogs from './20261121_0002_catalogs.js';
import * as eventTypes from './20261121_0003_event_types.js';
import * as sensors from './20261121_0004_sensors.js';
import * as patrols from './20261121_0005_patrols.js';
import * as tenantScopedIds from './20261123_0201_tenant_scoped_ids.js';
import * as clientProfile from './20261123_0401_client_profile.js';
import * as siteMaps from './20261123_0402_site_maps.js';
import * as eventsFamily from './20261123_0501_events_family.js';
import * as offlinePull from './20261123_0601_offline_pull.js';
import * as patrolSerials from './20261123_0701_patrol_serials.js';
import * as patrolChildIds from './20261123_0801_patrol_child_ids.js';
import * as subjectStatusIndex from './20261124_0101_subject_status_index.js';
import * as storedFileRemovals from './20261125_0301_stored_file_removals.js';
import * as changeFeed from './20261126_0101_change_feed.js';
import * as syncMembersOrder from './20261126_0201_sync_members_order.js';
import * as idempotencyKeys from './20261127_0101_idempotency_keys.js';
import * as idempotencyPrincipal from './20261127_0102_idempotency_principal.js';
import * as revisions from './20261128_0101_revisions.js';
import * as mergeHistory from './20261128_0102_merge_history.js';
import * as fileUploads from './20261128_0103_file_uploads.js';
import * as subjectSide from './20261129_0101_subject_side.js';
import * as lastLoginIndex from './20261129_0102_last_login_index.js';
import * as subjectStatusClearedPosition from './20261129_0301_subject_status_cleared_position.js';
import * as schemaDrafts from './20261130_0101_schema_drafts.js';
import * as eventDetailUsage from './20261130_0102_event_detail_usage.js';
import * as eventSchemaRevision from './20261130_0103_event_schema_revision.js';

/**
 * The server's migrations, in order. Append only: a migration that has run anywhere is never
 * edited; a change is a new file. Migrations import no application code.
 */
export const serverMigrations: ReadonlyArray<{ name: string; migration: Knex.Migration }> = [
  { name: '20261121_0001_foundation', migration: foundation },
  { name: '20261121_0002_catalogs', migration: catalogs },
  { name: '20261121_0003_event_types', migration: eventTypes },
  { name: '20261121_0004_sensors', migration: sensors },
  { name: '20261121_0005_patrols', migration: patrols },
  { name: '20261123_0201_tenant_scoped_ids', migration: tenantScopedIds },
  { name: '20261123_0401_client_profile', migration: clientProfile },
  { name: '20261123_0402_site_maps', migration: siteMaps },
  { name: '20261123_0501_events_family', migration: eventsFamily },
  { name: '20261123_0601_offline_pull', migration: offlinePull },
  { name: '20261123_0701_patrol_serials', migration: patrolSerials },
  { name: '20261123_0801_patrol_child_ids', migration: patrolChildIds },
  { name: '20261124_0101_subject_status_index', migration: subjectStatusIndex },
  { name: '20261125_0301_stored_file_removals', migration: storedFileRemovals },
  { name: '20261126_0101_change_feed', migration: changeFeed },
  { name: '20261126_0201_sync_members_order', migration: syncMembersOrder },
  { name: '20261127_0101_idempotency_keys', migration: idempotencyKeys },
  { name: '20261127_0102_idempotency_principal', migration: idempotencyPrincipal },
  { name: '20261128_0101_revisions', migration: revisions },
  { name: '20261128_0102_merge_history', migration: mergeHistory },
  { name: '20261128_0103_file_uploads', migration: fileUploads },
  { name: '20261129_0101_subject_side', migration: subjectSide },
  { name: '20261129_0102_last_login_index', migration: lastLoginIndex },
  { name: '20261129_0301_subject_status_cleared_position', migration: subjectStatusClearedPosition },
  { name: '20261130_0101_schema_drafts', migration: schemaDrafts },
  { name: '20261130_0102_event_detail_usage', migration: eventDetailUsage },
  { name: '20261130_0103_event_schema_revision', migration: eventSchemaRevision },
];
