import type { User } from '../../domain/model.js';
import type { UserRepository } from '../../domain/ports.js';
import type { Executor } from '../rows.js';
import type { HotReads } from '../hot-reads.js';
import { fromDbBool, fromDbMillis } from '../time.js';

export interface UserRow {
  id: string;
  tenant_id: string;
  username: string;
  password_hash: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  is_superuser: boolean | number;
  is_active: boolean | number;
  created_at: number | string;
  updated_at: number | string;
}

export const USER_COLUMNS = [
  'id', 'tenant_id', 'username', 'password_hash', 'first_name', 'last_name', 'email', 'phone',
  'is_superuser', 'is_active', 'created_at', 'updated_at',
] as const;

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    username: row.username,
    passwordHash: row.password_hash,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    isSuperuser: fromDbBool(row.is_superuser),
    isActive: fromDbBool(row.is_active),
    createdAt: fromDbMillis(row.created_at),
    updatedAt: fromDbMillis(row.updated_at),
  };
}

function toRow(user: User): UserRow {
  return {
    id: user.id,
    tenant_id: user.tenantId,
    username: user.username,
    password_hash: user.passwordHash,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    phone: user.phone,
    is_superuser: user.isSuperuser,
    is_active: user.isActive,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  };
}

export class KnexUserRepository implements UserRepository {
  constructor(
    private readonly db: Executor,
    private readonly hot?: HotReads,
  ) {}

  async findInTenant(tenantId: string, userId: string): Promise<User | null> {
    const row = await this.db<UserRow>('users').where({ tenant_id: tenantId, id: userId }).first();
    return row ? toUser(row) : null;
  }

  async findManyInTenant(tenantId: string, ids: readonly string[]): Promise<User[]> {
    if (ids.length === 0) return [];
    return (await this.db<UserRow>('users').where({ tenant_id: tenantId }).whereIn('id', [...ids])).map(toUser);
  }

  async findByUsername(username: string): Promise<User | null> {
    const row = await this.db<UserRow>('users').where({ username }).first();
    return row ? toUser(row) : null;
  }

  async listInTenant(tenantId: string): Promise<User[]> {
    const rows = await this.db<UserRow>('users').where({ tenant_id: tenantId }).orderBy('username');
    return rows.map(toUser);
  }

  async usernameTaken(username: string): Promise<boolean> {
    const row = await this.db('users').select('id').whereRaw('lower(username) = lower(?)', [username]).first();
    return Boolean(row);
  }

  async insert(user: User): Promise<void> {
    await this.db('users').insert(toRow(user));
  }

  async permissionsOf(userId: string): Promise<string[]> {
    if (this.hot) return this.hot.permissionsOf(userId);
    const rows = await this.db('user_permissions').select('codename').where({ user_id: userId });
    return rows.map((row: { codename: string }) => row.codename);
  }

  async grantPermissions(userId: string, codenames: readonly string[]): Promise<void> {
    if (codenames.length === 0) return;
    await this.db('user_permissions')
      .insert(codenames.map((codename) => ({ user_id: userId, codename })))
      .onConflict(['user_id', 'codename'])
      .ignore();
  }

  async setPasswordHash(userId: string, passwordHash: string, at: number): Promise<void> {
    await this.db('users').where({ id: userId }).update({ password_hash: passwordHash, updated_at: at });
  }

  async setSuperuser(userId: string, isSuperuser: boolean, at: number): Promise<void> {
    await this.db('users').where({ id: userId }).update({ is_superuser: isSuperuser, updated_at: at });
  }

  async profileIdsOf(userId: string): Promise<string[]> {
    const rows = await this.db('user_profiles').select('profile_user_id').where({ user_id: userId });
    return rows.map((row: { profile_user_id: string }) => row.profile_user_id);
  }

  /**
   * When the user last signed in, as the original's `last_login`: the newest access token issued
   * to it (a login or a refresh), or null. NOTE: `oauth_access_tokens` has no user index yet.
   */
  async lastLoginOf(tenantId: string, userId: string): Promise<number | null> {
    const row = (await this.db('oauth_access_tokens').where({ tenant_id: tenantId, user_id: userId }).max({ at: 'created_at' }).first()) as { at: unknown } | undefined;
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  async addProfile(userId: string, profileUserId: string): Promise<void> {
    await this.db('user_profiles').insert({ user_id: userId, profile_user_id: profileUserId }).onConflict(['user_id', 'profile_user_id']).ignore();
  }
}
