import type { TestServer } from '../helpers/server.js';

/**
 * The OAuth clients er-client logs in with: public clients with the password and refresh
 * grants, one in the server's default profile and one in the `earthranger` profile, used for
 * the calls that need the original's envelope (`ERClient.post_event_file` reads `["data"]`).
 */
export async function erClientSetup(s: TestServer): Promise<{ clientId: string; earthRangerClientId: string }> {
  const { admin } = s.server.runtime;
  await admin.createClient({ tenant: 'default', clientId: 'er_client_test', grants: ['password', 'refresh_token'] });
  await admin.createClient({ tenant: 'default', clientId: 'er_client_envelope', grants: ['password', 'refresh_token'], profile: 'earthranger' });
  return { clientId: 'er_client_test', earthRangerClientId: 'er_client_envelope' };
}
