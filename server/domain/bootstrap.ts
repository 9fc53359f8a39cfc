import { randomUUID } from 'node:crypto';
import type { Clock } from '../db/time.js';
import { randomToken } from '../security/crypto.js';
import { ConflictError, InputError } from './errors.js';
import type { GrantType } from './model.js';
import type { Store } from './ports.js';
import type { UserService } from './users/service.js';

export const DEFAULT_TENANT = 'default';
export const CLI_CLIENT_ID = 'fieldops-cli';
/** Loopback callbacks for the CLI: any port matches (RFC 8252 §7.3). */
export const CLI_REDIRECT_URIS = ['http://127.0.0.1/callback', 'http://[::1]/callback', 'http://localhost/callback'];
const CLI_GRANTS: GrantType[] = ['password', 'refresh_token', 'authorization_code'];

export interface BootstrapResult {
  /** True when this call initialised an empty database. */
  initialised: boolean;
  /** The generated admin password, returned once so that it can be printed once. */
  generatedAdminPassword: string | null;
}

/**
 * First start on an empty database: tenant `default`, superuser `admin`, and the public,
 * service-wide OAuth client `fieldops-cli`. Several processes starting at once are safe: the
 * loser of the race finds the tenant already there and does nothing.
 */
export async function bootstrapEmptyDatabase(
  deps: { store: Store; users: UserService; clock: Clock },
  adminPassword: string | null,
): Promise<BootstrapResult> {
  if ((await deps.store.repos.tenants.count()) > 0) return { initialised: false, generatedAdminPassword: null };
  const password = adminPassword ?? `${randomToken(12)}-${randomToken(6)}`;
  let prepared;
  try {
    prepared = await deps.users.prepare({ username: 'admin', password });
  } catch (error) {
    if (error instanceof InputError) {
      const reasons = Object.values(error.fields).flat().map((issue) => issue.message).join(' ');
      throw new InputError(`FIELDOPS_ADMIN_PASSWORD is not acceptable: ${reasons}`);
    }
    throw error;
  }
  try {
    await deps.store.transaction(async (repos) => {
      const now = deps.clock.now();
      const tenantId = randomUUID();
      await repos.tenants.insert({ id: tenantId, name: DEFAULT_TENANT, createdAt: now });
      await deps.users.insert(repos, tenantId, prepared, { isSuperuser: true });
      await repos.clients.insert({
        id: randomUUID(),
        tenantId: null,
        clientId: CLI_CLIENT_ID,
        name: 'fieldops command-line client',
        secretHash: null,
        grantTypes: CLI_GRANTS,
        redirectUris: CLI_REDIRECT_URIS,
        // The CLI reads the fieldops shapes whatever FIELDOPS_API_PROFILE says.
        profile: 'fieldops',
        createdAt: now,
      });
    });
  } catch (error) {
    // Another process initialised the database first: its tenant is there now.
    if ((error instanceof ConflictError || error instanceof InputError) && (await deps.store.repos.tenants.count()) > 0) {
      return { initialised: false, generatedAdminPassword: null };
    }
    throw error;
  }
  return { initialised: true, generatedAdminPassword: adminPassword ? null : password };
}
