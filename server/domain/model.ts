/** Domain records, as services see them (camelCase; epoch milliseconds for times). */

export interface Tenant {
  id: string;
  name: string;
  createdAt: number;
}

export interface User {
  id: string;
  tenantId: string;
  username: string;
  passwordHash: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  isSuperuser: boolean;
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

export type GrantType = 'password' | 'refresh_token' | 'authorization_code';
export const GRANT_TYPES: readonly GrantType[] = ['password', 'refresh_token', 'authorization_code'];

export interface OAuthClient {
  id: string;
  /** null for a service-wide client, usable by the users of every tenant. */
  tenantId: string | null;
  clientId: string;
  name: string;
  /** null for a public client. */
  secretHash: string | null;
  grantTypes: GrantType[];
  redirectUris: string[];
  /** The response profile of the client's tokens (CONTRACT §11); null: the server's default. */
  profile: ApiProfile | null;
  createdAt: number;
}

/** Response profiles (CONTRACT §11): this service's shapes, or the original server's. */
export const API_PROFILES = ['fieldops', 'earthranger'] as const;
export type ApiProfile = (typeof API_PROFILES)[number];

export interface AccessTokenRecord {
  id: string;
  tokenHash: string;
  familyId: string;
  refreshTokenId: string | null;
  tenantId: string;
  clientPk: string;
  userId: string;
  scope: string;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

export interface RefreshTokenRecord {
  id: string;
  tokenHash: string;
  familyId: string;
  tenantId: string;
  clientPk: string;
  userId: string;
  scope: string;
  createdAt: number;
  expiresAt: number;
  rotatedAt: number | null;
  revokedAt: number | null;
}

export interface AuthorizationCodeRecord {
  id: string;
  codeHash: string;
  tenantId: string;
  clientPk: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  scope: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

/** The catalogs whose versions drive validators. */
/** (`patrols` is not a cached catalog: its row serialises serial-number assignment.) */
/** `eventtypes_v1`: v1 event types and event categories (what the v1 types list shows). */
export type CatalogName = 'patroltypes' | 'eventtypes' | 'eventtypes_v1' | 'choices' | 'subjects' | 'patrols';

/**
 * The catalog whose version every subject write moves (SubjectService, sensor intake), and which
 * a steady sensor batch's stamp is checked against (SteadyIntakeStamp).
 */
export const SUBJECTS_CATALOG = 'subjects' satisfies CatalogName;

export interface CatalogVersion {
  version: number;
  /** Newest change in the catalog (an updated_at, or the time of a deletion), epoch ms. */
  lastModified: number;
}

/** What every schema-carrying catalog item has (patrol types, v2 event types). */
export interface CatalogItem {
  id: string;
  tenantId: string;
  value: string;
  display: string;
  ordernum: number | null;
  icon: string;
  defaultPriority: number;
  isActive: boolean;
  /** The stored `{json, ui}` document, as JSON text exactly as stored. */
  schema: string;
  /** Bumped with every change to the row (renumbering included). */
  revision: number;
  createdAt: number;
  updatedAt: number;
}

export type PatrolType = CatalogItem;

export interface RevisionEntry {
  id: string;
  tenantId: string;
  catalog: CatalogName;
  itemId: string;
  sequence: number;
  action: 'created' | 'updated' | 'deleted';
  time: number;
  userId: string | null;
  username: string | null;
  updatedFields: Record<string, unknown> | null;
  snapshot: Record<string, unknown> | null;
  /** Issue 28: why this revision was written (a restore, a publish and the breaks it allowed); absent on ordinary writes. */
  note?: string | null;
}

export interface Subject {
  id: string;
  tenantId: string;
  name: string;
  subjectType: string;
  subjectSubtype: string;
  isActive: boolean;
  additional: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  /**
   * Moves by one with every write of the subject (its kind, a group it joins); a create is 1.
   * Shown in fieldops bodies and on the feed (issue 26 §2); subjects are never merged.
   */
  revision: number;
}

export interface Choice {
  id: string;
  tenantId: string;
  /** The choice list's name (what `?field=` selects). */
  field: string;
  value: string;
  display: string;
  ordernum: number | null;
  icon: string;
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

/** A v2 event type: a schema-carrying catalog item with event-specific attributes (CONTRACT §5). */
export interface EventType extends CatalogItem {
  category: string;
  defaultState: 'new' | 'active' | 'resolved';
  geometryType: 'Point' | 'Polygon';
  isCollection: boolean;
  readonly: boolean;
}

export interface EventCategory {
  id: string;
  tenantId: string;
  value: string;
  display: string;
  ordernum: number | null;
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

/** A v1 event type: its document is template text, stored verbatim until migrated. */
export interface EventTypeV1 {
  id: string;
  tenantId: string;
  value: string;
  display: string;
  category: string;
  defaultPriority: number;
  isActive: boolean;
  schemaText: string;
  migratedTo: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A sensor provider: an integration or device family, created on first sight of its key. */
export interface SensorProvider {
  id: string;
  tenantId: string;
  key: string;
  /** The path type it was first seen under (gps-radio, radioagent, camera-trap, ...). */
  providerType: string;
  /** The latest heartbeat message, verbatim. */
  lastHeartbeat: Record<string, unknown> | null;
  lastHeartbeatAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** One device of a provider, by its manufacturer id; `subjectId` is whom it tracks now. */
export interface SensorSource {
  id: string;
  tenantId: string;
  providerId: string;
  manufacturerId: string;
  sourceType: string;
  modelName: string;
  subjectId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One fix of a source; (sourceId, recordedAt) is unique. */
export interface Observation {
  id: string;
  tenantId: string;
  sourceId: string;
  subjectId: string | null;
  recordedAt: number;
  latitude: number;
  longitude: number;
  additional: Record<string, unknown>;
  createdAt: number;
}

/** A subject's newest position and newest radio state (each from the newest observation carrying it). */
export interface SubjectStatus {
  subjectId: string;
  tenantId: string;
  sourceId: string | null;
  recordedAt: number;
  latitude: number;
  longitude: number;
  radioRecordedAt: number | null;
  radioState: Record<string, unknown> | null;
  updatedAt: number;
}

/** An event (CONTRACT §5b): camera-trap reports today; patrol segment events extend it. */
export interface ActivityEvent {
  id: string;
  tenantId: string;
  /** The event type's `value`. */
  eventType: string;
  title: string;
  time: number;
  latitude: number | null;
  longitude: number | null;
  priority: number;
  state: 'new' | 'active' | 'resolved';
  eventDetails: Record<string, unknown>;
  createdByUserId: string | null;
  createdByClientId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A stored file attached to an event; `path` is relative to the file store's root. */
export interface EventFile {
  id: string;
  tenantId: string;
  eventId: string;
  sha256: string;
  path: string;
  size: number;
  contentType: string;
  filename: string;
  createdAt: number;
}
