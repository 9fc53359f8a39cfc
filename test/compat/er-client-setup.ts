import type { TestServer } from '../helpers/server.js';

/**
 * The OAuth client er-client logs in with: a public client with the password and refresh
 * grants, in the `earthranger` response profile where the server has profiles (the client
 * reads `{data: ...}` from multipart answers).
 */
export async function erClientSetup(s: TestServer): Promise<string> {
  const clientId = 'er_client_test';
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId, grants: ['password', 'refresh_token'] });
  return clientId;
}
