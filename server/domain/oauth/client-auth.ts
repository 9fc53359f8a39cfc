import { type SecretVerifier, verifySecret } from '../../security/crypto.js';
import { OAuthError } from '../errors.js';
import type { OAuthClient } from '../model.js';
import type { ClientRepository } from '../ports.js';
import { type CredentialThrottle, throttledCheck } from './throttle.js';

/** Client credentials as they arrived: HTTP Basic and/or form fields. */
export interface ClientCredentials {
  basic: { clientId: string; secret: string } | null;
  clientId: string | undefined;
  clientSecret: string | undefined;
}

/** What client authentication needs: the clients, the throttle, and the gated scrypt. */
export interface ClientAuthDeps {
  clients: ClientRepository;
  throttle: CredentialThrottle;
  secrets: SecretVerifier;
}

/**
 * Authenticates the client at the token and revocation endpoints (RFC 6749 §2.3). A public
 * client needs only its id (an empty secret is ignored); a confidential one must present its
 * secret, by Basic or by `client_secret`.
 */
export async function authenticateClient(deps: ClientAuthDeps, credentials: ClientCredentials, address: string): Promise<OAuthClient> {
  const { basic } = credentials;
  if (basic && credentials.clientId && credentials.clientId !== basic.clientId) {
    throw new OAuthError('invalid_request', 'client_id differs from the client authenticated by HTTP Basic.');
  }
  const clientId = basic?.clientId ?? credentials.clientId;
  if (!clientId) throw new OAuthError('invalid_client', 'Client authentication failed: no client_id.', 401);
  const secret = basic?.secret ?? credentials.clientSecret ?? '';
  const client = await deps.clients.findByClientId(clientId);
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
  if (client.secretHash !== null) {
    if (!(await confidentialSecretMatches(deps, client, secret, address))) throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
  }
  return client;
}

/**
 * A confidential client's secret, checked like a password (see throttledCheck): gated (503 when
 * the server is saturated), reserved on the client_id and the address first (429 once spent,
 * without a scrypt), then verified. An empty secret is a failure that costs no hash.
 */
export function confidentialSecretMatches(deps: Omit<ClientAuthDeps, 'clients'>, client: OAuthClient, secret: string, address: string): Promise<boolean> {
  return throttledCheck(deps, { kind: 'client', identity: client.clientId, address }, async () => secret !== '' && verifySecret(secret, client.secretHash!));
}

export function requireGrant(client: OAuthClient, grant: string): void {
  if (!client.grantTypes.includes(grant as OAuthClient['grantTypes'][number])) {
    throw new OAuthError('unauthorized_client', `This client may not use the ${grant} grant.`);
  }
}

/** A user may use a service-wide client or a client of their own tenant. */
export function clientServesTenant(client: OAuthClient, tenantId: string): boolean {
  return client.tenantId === null || client.tenantId === tenantId;
}
