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
  createdAt: number;
}

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
