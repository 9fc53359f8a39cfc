import type { AccessTokenRecord, AuthorizationCodeRecord, RefreshTokenRecord } from '../../domain/model.js';
import type { ActiveAccessToken, TokenRepository } from '../../domain/ports.js';
import type { Executor } from '../rows.js';
import type { HotReads } from '../hot-reads.js';
import { fromDbMillis, fromDbMillisOrNull } from '../time.js';
import { CLIENT_COLUMNS, type ClientRow, toClient } from './clients.js';
import { USER_COLUMNS, type UserRow, toUser } from './users.js';

type Row = Record<string, unknown>;

/** The columns access and refresh tokens share. */
const tokenCommon = (row: Row) => ({
  id: row.id as string,
  tokenHash: row.token_hash as string,
  familyId: row.family_id as string,
  tenantId: row.tenant_id as string,
  clientPk: row.client_pk as string,
  userId: row.user_id as string,
  scope: row.scope as string,
  createdAt: fromDbMillis(row.created_at),
  expiresAt: fromDbMillis(row.expires_at),
  revokedAt: fromDbMillisOrNull(row.revoked_at),
});

const toAccess = (row: Row): AccessTokenRecord => ({ ...tokenCommon(row), refreshTokenId: (row.refresh_token_id as string | null) ?? null });

const toRefresh = (row: Row): RefreshTokenRecord => ({ ...tokenCommon(row), rotatedAt: fromDbMillisOrNull(row.rotated_at) });

const toCode = (row: Row): AuthorizationCodeRecord => ({
  id: row.id as string,
  codeHash: row.code_hash as string,
  tenantId: row.tenant_id as string,
  clientPk: row.client_pk as string,
  userId: row.user_id as string,
  redirectUri: row.redirect_uri as string,
  codeChallenge: (row.code_challenge as string | null) ?? null,
  codeChallengeMethod: (row.code_challenge_method as string | null) ?? null,
  scope: row.scope as string,
  createdAt: fromDbMillis(row.created_at),
  expiresAt: fromDbMillis(row.expires_at),
  usedAt: fromDbMillisOrNull(row.used_at),
});

/** Picks the `prefix__column` aliases of a joined row back into a plain row. */
function unprefix(row: Row, prefix: string): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
  return out;
}

export class KnexTokenRepository implements TokenRepository {
  constructor(
    private readonly db: Executor,
    private readonly hot?: HotReads,
  ) {}

  async insertAccessToken(r: AccessTokenRecord): Promise<void> {
    await this.db('oauth_access_tokens').insert({
      id: r.id, token_hash: r.tokenHash, family_id: r.familyId, refresh_token_id: r.refreshTokenId,
      tenant_id: r.tenantId, client_pk: r.clientPk, user_id: r.userId, scope: r.scope,
      created_at: r.createdAt, expires_at: r.expiresAt, revoked_at: r.revokedAt,
    });
  }

  async insertRefreshToken(r: RefreshTokenRecord): Promise<void> {
    await this.db('oauth_refresh_tokens').insert({
      id: r.id, token_hash: r.tokenHash, family_id: r.familyId, tenant_id: r.tenantId,
      client_pk: r.clientPk, user_id: r.userId, scope: r.scope, created_at: r.createdAt,
      expires_at: r.expiresAt, rotated_at: r.rotatedAt, revoked_at: r.revokedAt,
    });
  }

  /** One round trip for the hot path of every authenticated request. */
  async findAccessTokenWithOwner(tokenHash: string): Promise<ActiveAccessToken | null> {
    const row = this.hot ? await this.hot.accessTokenWithOwner(tokenHash) : await this.joinedToken(tokenHash);
    if (!row) return null;
    return {
      token: toAccess(row),
      user: toUser(unprefix(row, 'u__') as unknown as UserRow),
      client: toClient(unprefix(row, 'c__') as unknown as ClientRow),
    };
  }

  private async joinedToken(tokenHash: string): Promise<Row | undefined> {
    return (await this.db('oauth_access_tokens as t')
      .join('users as u', 'u.id', 't.user_id')
      .join('oauth_clients as c', 'c.id', 't.client_pk')
      .where('t.token_hash', tokenHash)
      .first([
        't.*',
        ...USER_COLUMNS.map((column) => `u.${column} as u__${column}`),
        ...CLIENT_COLUMNS.map((column) => `c.${column} as c__${column}`),
      ])) as Row | undefined;
  }

  async findAccessToken(tokenHash: string): Promise<AccessTokenRecord | null> {
    const row = await this.db('oauth_access_tokens').where({ token_hash: tokenHash }).first();
    return row ? toAccess(row) : null;
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null> {
    const row = await this.db('oauth_refresh_tokens').where({ token_hash: tokenHash }).first();
    return row ? toRefresh(row) : null;
  }

  async markRefreshRotated(id: string, at: number): Promise<boolean> {
    const count = await this.db('oauth_refresh_tokens').where({ id }).whereNull('rotated_at').whereNull('revoked_at').update({ rotated_at: at });
    return count === 1;
  }

  async revokeFamily(familyId: string, at: number): Promise<void> {
    await this.db('oauth_refresh_tokens').where({ family_id: familyId }).whereNull('revoked_at').update({ revoked_at: at });
    await this.db('oauth_access_tokens').where({ family_id: familyId }).whereNull('revoked_at').update({ revoked_at: at });
  }

  async revokeAllOfUser(userId: string, at: number): Promise<void> {
    await this.db('oauth_refresh_tokens').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: at });
    await this.db('oauth_access_tokens').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: at });
  }

  async revokeAccessToken(id: string, at: number): Promise<void> {
    await this.db('oauth_access_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: at });
  }

  async insertAuthorizationCode(r: AuthorizationCodeRecord): Promise<void> {
    await this.db('oauth_authorization_codes').insert({
      id: r.id, code_hash: r.codeHash, tenant_id: r.tenantId, client_pk: r.clientPk, user_id: r.userId,
      redirect_uri: r.redirectUri, code_challenge: r.codeChallenge, code_challenge_method: r.codeChallengeMethod,
      scope: r.scope, created_at: r.createdAt, expires_at: r.expiresAt, used_at: r.usedAt,
    });
  }

  async findAuthorizationCode(codeHash: string): Promise<AuthorizationCodeRecord | null> {
    const row = await this.db('oauth_authorization_codes').where({ code_hash: codeHash }).first();
    return row ? toCode(row) : null;
  }

  async markAuthorizationCodeUsed(id: string, at: number): Promise<boolean> {
    const count = await this.db('oauth_authorization_codes').where({ id }).whereNull('used_at').update({ used_at: at });
    return count === 1;
  }
}
