import type { EventUsageRepository } from './events/usage-ports.js';
import type { CatalogDraftRepository } from './catalog/draft-ports.js';
import type { SubjectSourceRepository } from './subjects/sources-ports.js';
import type { TrackRepository } from './tracks/ports.js';
import type { EventRelationshipRepository } from './events/relationship-ports.js';
import type { MessageRepository } from './messages/ports.js';
import type { FeatureRepository } from './features/ports.js';
import type {
  CatalogItem,
  Choice,
  EventCategory,
  EventType,
  EventTypeV1,
  CatalogName,
  CatalogVersion,
  PatrolType,
  RevisionEntry,
  Subject,
  AccessTokenRecord,
  AuthorizationCodeRecord,
  OAuthClient,
  RefreshTokenRecord,
  Tenant,
  User,
} from './model.js';
import type { EventNoteRepository, EventRepository } from './events/ports.js';
import type { ApiProfile, Observation, SensorProvider, SensorSource, SubjectStatus } from './model.js';

import type { PatrolRepository } from './patrols/ports.js';
import type { SyncRepository } from './sync/ports.js';
import type { ConflictRepository, RevisionRepository } from './merge/ports.js';
import type { ConflictPolicy } from '../../protocol/push.js';
import type { UploadRepository } from '../storage/tus/ports.js';

/**
 * What the services need from storage, named for intent. One Knex implementation lives in
 * server/db/repositories; every tenant-owned read takes the tenant id.
 */
export interface TenantRepository {
  findByName(name: string): Promise<Tenant | null>;
  insert(tenant: Tenant): Promise<void>;
  count(): Promise<number>;
  /** What a same-field conflict does in this tenant (issue 26 §3). */
  conflictPolicy(tenantId: string): Promise<ConflictPolicy>;
  setConflictPolicy(tenantId: string, policy: ConflictPolicy): Promise<void>;
}

export interface UserRepository {
  /** When the user last logged in: the newest access token issued to them (null: never). */
  lastLoginOf(tenantId: string, userId: string): Promise<number | null>;
  findManyInTenant(tenantId: string, ids: readonly string[]): Promise<User[]>;
  findInTenant(tenantId: string, userId: string): Promise<User | null>;
  /** Usernames are unique across the service: this is how a login finds its tenant. */
  findByUsername(username: string): Promise<User | null>;
  listInTenant(tenantId: string): Promise<User[]>;
  usernameTaken(username: string): Promise<boolean>;
  insert(user: User): Promise<void>;
  permissionsOf(userId: string): Promise<string[]>;
  grantPermissions(userId: string, codenames: readonly string[]): Promise<void>;
  setSuperuser(userId: string, isSuperuser: boolean, at: number): Promise<void>;
  setPasswordHash(userId: string, passwordHash: string, at: number): Promise<void>;
  /** Profiles the user may act as (ids), within the same tenant. */
  profileIdsOf(userId: string): Promise<string[]>;
  addProfile(userId: string, profileUserId: string): Promise<void>;
}

export interface ClientRepository {
  findByClientId(clientId: string): Promise<OAuthClient | null>;
  findById(clientPk: string): Promise<OAuthClient | null>;
  insert(client: OAuthClient): Promise<void>;
  setProfile(clientPk: string, profile: ApiProfile | null): Promise<void>;
  permissionsOf(clientPk: string): Promise<string[]>;
  grantPermissions(clientPk: string, codenames: readonly string[]): Promise<void>;
}

/** An access token with what authenticating a request needs, in one read. */
export interface ActiveAccessToken {
  token: AccessTokenRecord;
  user: User;
  client: OAuthClient;
}

export interface TokenRepository {
  insertAccessToken(record: AccessTokenRecord): Promise<void>;
  insertRefreshToken(record: RefreshTokenRecord): Promise<void>;
  findAccessTokenWithOwner(tokenHash: string): Promise<ActiveAccessToken | null>;
  findAccessToken(tokenHash: string): Promise<AccessTokenRecord | null>;
  findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /** Marks the token rotated; false when it already was (a concurrent or replayed use). */
  markRefreshRotated(id: string, at: number): Promise<boolean>;
  /** Revokes every refresh and access token of the family. */
  revokeFamily(familyId: string, at: number): Promise<void>;
  revokeAccessToken(id: string, at: number): Promise<void>;
  /** Revokes every refresh and access token issued to the user (or to a profile acting as it). */
  revokeAllOfUser(userId: string, at: number): Promise<void>;
  insertAuthorizationCode(record: AuthorizationCodeRecord): Promise<void>;
  findAuthorizationCode(codeHash: string): Promise<AuthorizationCodeRecord | null>;
  /** Marks the code used; false when it already was (a replay). */
  markAuthorizationCodeUsed(id: string, at: number): Promise<boolean>;
}

export interface ThrottleRepository {
  /**
   * Atomically counts one attempt against the key unless it has used up `limit` in the current
   * window (a window older than `windowStart` restarts). `allowed: false` means 429; either way
   * the answer carries the start of the window that decided.
   */
  reserve(scopeKey: string, limit: number, now: number, windowStart: number): Promise<{ allowed: boolean; windowStart: number }>;
  /** Gives back an attempt reserved in the window starting at `windowStart` (a success). */
  release(scopeKey: string, windowStart: number): Promise<void>;
  clear(scopeKey: string): Promise<void>;
  /** Forgets the key's count as `clear` does, answering what it was (null: nothing was counted). */
  take(scopeKey: string): Promise<{ failures: number; windowStart: number } | null>;
}

export interface CatalogRepository {
  /** The catalog's version; version 0 at the epoch when nothing was ever written. */
  version(tenantId: string, catalog: CatalogName): Promise<CatalogVersion>;
  /**
   * Serialises writers of one tenant's catalog until the transaction ends (a row lock on
   * PostgreSQL; SQLite has a single writer already). Call first in a write transaction.
   */
  lock(tenantId: string, catalog: CatalogName): Promise<void>;
  /** Records a change: version + 1, lastModified = max(lastModified, at). */
  bump(tenantId: string, catalog: CatalogName, at: number): Promise<void>;
  appendRevision(entry: Omit<RevisionEntry, 'sequence'>): Promise<RevisionEntry>;
  revisions(tenantId: string, catalog: CatalogName, itemId: string, offset: number, limit: number): Promise<{ total: number; entries: RevisionEntry[] }>;
  /** Issue 28: the item's history entries with sequence ≤ `upTo`, ascending (for foldRevisions). */
  revisionsUpTo(tenantId: string, catalog: CatalogName, itemId: string, upTo: number): Promise<RevisionEntry[]>;
  /** Issue 28: the item's latest history sequence (0 when it has none). */
  latestSequence(tenantId: string, catalog: CatalogName, itemId: string): Promise<number>;
}

export interface CatalogFilter {
  includeInactive: boolean;
  updatedSince: number | null;
}

/** Storage of one schema-carrying catalog (patrol types, event types). */
export interface CatalogItemRepository<T extends CatalogItem> {
  findMany(tenantId: string, ids: readonly string[]): Promise<T[]>;
  /** Ordered by ordernum (nulls last), then display, then value. */
  list(tenantId: string, filter: CatalogFilter): Promise<T[]>;
  /** By UUID or by value. */
  find(tenantId: string, key: string): Promise<T | null>;
  insert(item: T): Promise<void>;
  /** Writes every mutable column (revision and updated_at as given). */
  update(item: T): Promise<void>;
  delete(tenantId: string, id: string): Promise<void>;
  /** Renumbering without touching updated_at: ordernum and revision only. */
  setOrdernum(tenantId: string, id: string, ordernum: number, revision: number): Promise<void>;
}

export interface SubjectRepository {
  findMany(tenantId: string, ids: readonly string[]): Promise<Subject[]>;
  /** Active subjects of the tenant's patrol-leader groups; limited to groups the user may view unless null. */
  patrolLeaders(tenantId: string, viewerUserId: string | null): Promise<Subject[]>;
  insertSubject(subject: Subject): Promise<void>;
  ensureGroup(tenantId: string, name: string, isPatrolLeaderGroup: boolean, at: number): Promise<string>;
  addToGroup(groupId: string, subjectId: string): Promise<void>;
  allowUserToView(userId: string, groupId: string): Promise<void>;
  /** Groups with their active subjects; limited to groups the user may view unless null. */
  groupsWithSubjects(tenantId: string, viewerUserId: string | null): Promise<Array<{ id: string; name: string; subjects: Subject[] }>>;
}

/** The site's map settings (CONTRACT §11: `maps/`). */
export interface SiteMap {
  id: string;
  tenantId: string;
  name: string;
  center: [longitude: number, latitude: number];
  zoom: number;
  updatedAt: number;
}

export interface SiteMapRepository {
  find(tenantId: string): Promise<SiteMap | null>;
  upsert(map: SiteMap): Promise<void>;
}

export interface ChoiceFilter {
  fields: readonly string[] | null;
  includeInactive: boolean;
}

export interface ChoiceRepository {
  /** Ordered by field, then ordernum (nulls last), then value. */
  list(tenantId: string, filter: ChoiceFilter, page?: { offset: number; limit: number }): Promise<Choice[]>;
  count(tenantId: string, filter: ChoiceFilter): Promise<number>;
  find(tenantId: string, id: string): Promise<Choice | null>;
  /** Those of `ids` that exist, active or not, in no order. */
  findMany(tenantId: string, ids: readonly string[]): Promise<Choice[]>;
  findByValue(tenantId: string, field: string, value: string): Promise<Choice | null>;
  insert(choice: Choice): Promise<void>;
  update(choice: Choice): Promise<void>;
}

export interface EventCategoryRepository {
  list(tenantId: string, includeInactive: boolean): Promise<EventCategory[]>;
  find(tenantId: string, key: string): Promise<EventCategory | null>;
  insert(category: EventCategory): Promise<void>;
  update(category: EventCategory): Promise<void>;
}

export interface EventTypeRepository extends CatalogItemRepository<EventType> {
  /** Values of the tenant's v2 types that at least one of its events was recorded with: one query, bounded by the catalog's size. */
  valuesWithEvents(tenantId: string): Promise<string[]>;
}

export interface EventTypeV1Repository {
  list(tenantId: string): Promise<EventTypeV1[]>;
  find(tenantId: string, key: string): Promise<EventTypeV1 | null>;
  insert(type: EventTypeV1): Promise<void>;
  update(type: EventTypeV1): Promise<void>;
}

export interface Repositories {
  patrols: PatrolRepository;
  eventTypes: EventTypeRepository;
  eventCategories: EventCategoryRepository;
  eventTypesV1: EventTypeV1Repository;
  choices: ChoiceRepository;
  catalog: CatalogRepository;
  patrolTypes: CatalogItemRepository<PatrolType>;
  subjects: SubjectRepository;
  tenants: TenantRepository;
  users: UserRepository;
  clients: ClientRepository;
  tokens: TokenRepository;
  throttle: ThrottleRepository;
  sensors: SensorRepository;
  observations: ObservationRepository;
  sensorSubjects: SensorSubjectRepository;
  events: EventRepository;
  eventNotes: EventNoteRepository;
  siteMaps: SiteMapRepository;
  /** The sync change log's write side (server/domain/sync/ports.ts). */
  sync: SyncRepository;
  /** Resumable uploads' rows (server/storage/tus/ports.ts). */
  uploads: UploadRepository;
  /** Field-level history and kept conflicts of events and patrols (server/domain/merge/ports.ts). */
  revisions: RevisionRepository;
  conflicts: ConflictRepository;
  /** Issue 27: sources, providers and their assignments to subjects over time. */
  subjectSources: SubjectSourceRepository;
  /** Issue 27: tracks and tracking exports (observations through assignments). */
  tracks: TrackRepository;
  /** Issue 27: incidents (`contains` relationships between events). */
  eventRelationships: EventRelationshipRepository;
  messages: MessageRepository;
  /** Issue 27: spatial feature sets. */
  features: FeatureRepository;
  /** Issue 28: per-type usage summaries of stored event details. */
  eventUsage: EventUsageRepository;
  /** Issue 28: schema drafts, never read by item reads. */
  catalogDrafts: CatalogDraftRepository;
}

/** Runs `work` in one transaction; the repositories it receives are bound to it. */
export type TransactionRunner = <T>(work: (repos: Repositories) => Promise<T>) => Promise<T>;

export interface Store {
  repos: Repositories;
  transaction: TransactionRunner;
  /** Cheap reachability probe for readiness. */
  ping(): Promise<void>;
  pendingMigrations(): Promise<string[]>;
}

// ---- Sensors and events (issue 6) ----

export interface NewSourceSpec {
  manufacturerId: string;
  sourceType: string;
  modelName: string;
}

/** A subject's newest fix of a batch (and newest radio state, when one carried it). */
export interface SubjectStatusUpdate {
  subjectId: string;
  tenantId: string;
  sourceId: string;
  recordedAt: number;
  latitude: number;
  longitude: number;
  radioRecordedAt: number | null;
  radioState: Record<string, unknown> | null;
  at: number;
}

/** What a steady batch is decided on (see findSteadyIntake). */
export interface SteadyIntakeRead {
  provider: SensorProvider;
  sources: Map<string, SensorSource>;
  /** The tenant's subjects of the names asked for, oldest first. */
  named: Subject[];
  /** The tenant's `subjects` catalog version, read no later than `named`: every subject write moves it. */
  subjectsVersion: number;
}

/**
 * The facts a steady batch was decided on, checked by its insert in the same statement (or
 * transaction): the tenant's subjects have not changed since `subjectsVersion`, and each source
 * of the batch still tracks the subject it tracked when read.
 */
export interface SteadyIntakeStamp {
  tenantId: string;
  subjectsVersion: number;
  sources: ReadonlyArray<{ id: string; subjectId: string | null }>;
}

export interface SensorRepository {
  /** The tenant's provider for `key`, created on first sight; concurrent first sights agree on one row. */
  ensureProvider(tenantId: string, key: string, providerType: string, at: number): Promise<SensorProvider>;
  /** The provider and the sources of these manufacturer ids, in one statement; null unless all exist. */
  findProviderWithSources(tenantId: string, key: string, manufacturerIds: readonly string[]): Promise<{ provider: SensorProvider; sources: Map<string, SensorSource> } | null>;
  /**
   * What a steady batch reads: the provider and the sources of these manufacturer ids (null
   * unless all exist), and the tenant's subjects of these names, oldest first. One statement on
   * PostgreSQL.
   */
  findSteadyIntake(tenantId: string, key: string, manufacturerIds: readonly string[], subjectNames: readonly string[]): Promise<SteadyIntakeRead | null>;
  /** Both of the above in one step (one statement when everything exists already). */
  ensureProviderWithSources(tenantId: string, key: string, providerType: string, specs: readonly NewSourceSpec[], at: number): Promise<{ provider: SensorProvider; sources: Map<string, SensorSource> }>;
  /** The provider's sources by manufacturer id, creating the missing ones (in a stable order). */
  ensureSources(tenantId: string, providerId: string, specs: readonly NewSourceSpec[], at: number): Promise<Map<string, SensorSource>>;
  assignSubject(sourceId: string, subjectId: string, at: number): Promise<void>;
  recordHeartbeat(providerId: string, message: Record<string, unknown>, at: number): Promise<void>;
  /** Claims an image for a camera-trap report; false when the tenant already has those bytes. */
  claimCameraImage(tenantId: string, sha256: string, eventId: string, providerId: string, at: number): Promise<boolean>;
}

export interface ObservationFilter {
  sourceId: string | null;
  subjectId: string | null;
  /** Inclusive bounds on recorded_at, epoch ms. */
  since: number | null;
  until: number | null;
  newestFirst: boolean;
}

export interface ObservationRepository {
  /**
   * Inserts, skipping every (source, recorded_at) already stored, and upserts each subject's
   * status (an older position or radio state never replaces a newer one); returns how many
   * observations were new. All or nothing: atomic on its own (inside a transaction when given
   * one); one statement where the dialect allows it.
   */
  insertBatch(observations: readonly Observation[], statuses: readonly SubjectStatusUpdate[]): Promise<number>;
  /**
   * insertBatch, only while `stamp` still holds, checked atomically with the writes; null (and
   * nothing written) when it no longer does. One statement on PostgreSQL; one transaction on
   * SQLite.
   */
  insertSteadyBatch(observations: readonly Observation[], statuses: readonly SubjectStatusUpdate[], stamp: SteadyIntakeStamp): Promise<number | null>;
  list(tenantId: string, filter: ObservationFilter, page: { offset: number; limit: number }): Promise<Observation[]>;
  count(tenantId: string, filter: ObservationFilter): Promise<number>;
}

export interface SubjectWithStatus {
  subject: Subject;
  status: SubjectStatus | null;
  groups: string[];
}

/** The subject reads and writes sensor intake needs beyond SubjectRepository. */
export interface SensorSubjectRepository {
  findByIds(tenantId: string, ids: readonly string[]): Promise<Subject[]>;
  /** Subjects of the tenant with these names, oldest first. */
  findByNames(tenantId: string, names: readonly string[]): Promise<Subject[]>;
  /** Names of the groups each subject belongs to. */
  groupNamesOf(subjectIds: readonly string[]): Promise<Map<string, string[]>>;
  updateKind(tenantId: string, subjectId: string, subjectType: string, subjectSubtype: string, at: number): Promise<void>;
  listWithStatus(tenantId: string, includeInactive: boolean, updatedSince?: number | null): Promise<SubjectWithStatus[]>;
  findWithStatus(tenantId: string, id: string): Promise<SubjectWithStatus | null>;
}

/** Events, their files, notes and history: server/domain/events/ports.ts. */
export type { EventRepository, EventNoteRepository } from './events/ports.js';
