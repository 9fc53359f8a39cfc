import { randomUUID } from 'node:crypto';
import { randomToken, sha256Hex } from '../../security/crypto.js';
import type { Repositories } from '../ports.js';

export const SCOPE = 'read write';

/** The token endpoint's success body (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface IssueRequest {
  tenantId: string;
  clientPk: string;
  userId: string;
  familyId: string;
  now: number;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
}

/** Creates an access and a refresh token of one family; only their hashes are stored. */
export async function issueTokenPair(repos: Repositories, request: IssueRequest): Promise<TokenResponse> {
  const accessToken = randomToken();
  const refreshToken = randomToken();
  const refreshId = randomUUID();
  const common = { tenantId: request.tenantId, clientPk: request.clientPk, userId: request.userId, scope: SCOPE, createdAt: request.now };
  await repos.tokens.insertRefreshToken({
    ...common,
    id: refreshId,
    tokenHash: sha256Hex(refreshToken),
    familyId: request.familyId,
    expiresAt: request.now + request.refreshTtlSeconds * 1000,
    rotatedAt: null,
    revokedAt: null,
  });
  await repos.tokens.insertAccessToken({
    ...common,
    id: randomUUID(),
    tokenHash: sha256Hex(accessToken),
    familyId: request.familyId,
    refreshTokenId: refreshId,
    expiresAt: request.now + request.accessTtlSeconds * 1000,
    revokedAt: null,
  });
  return { access_token: accessToken, token_type: 'Bearer', expires_in: request.accessTtlSeconds, refresh_token: refreshToken, scope: SCOPE };
}
