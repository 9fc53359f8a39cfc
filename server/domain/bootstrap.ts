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
  /**
   * The generated admin password, returned once so that it can be printed once; null when it
   * was chosen (FIELDOPS_ADMIN_PASSWORD) or handed to `keepGeneratedPassword`.
   */
  generatedAdminPassword: string | null;
  /** The generated password went to `keepGeneratedPassword` (e.g. FIELDOPS_ADMIN_PASSWORD_FILE). */
  passwordKept: boolean;
}

export interface BootstrapOptions {
  /** The admin's password (FIELDOPS_ADMIN_PASSWORD); null: one is generated. */
  adminPassword: string | null;
  /**
   * Keeps a generated password somewhere other than the caller's output. It runs inside the
   * set-up's transaction, before the commit: when it throws, nothing is created (no admin whose
   * password nobody knows) and its error is thrown.
   */
  keepGeneratedPassword?: (password: string) => void | Promise<void>;
}

const NOTHING_DONE: BootstrapResult = { initialised: false, generatedAdminPassword: null, passwordKept: false };

/**
 * First start on an empty database: tenant `default`, superuser `admin`, and the public,
 * service-wide OAuth client `fieldops-cli`. Several processes starting at once are safe: the
 * loser of the race finds the tenant already there and does nothing.
 */
export async function bootstrapEmptyDatabase(deps: { store: Store; users: UserService; clock: Clock }, options: BootstrapOptions): Promise<BootstrapResult> {
  const { adminPassword, keepGeneratedPassword } = options;
  if ((await deps.store.repos.tenants.count()) > 0) return { ...NOTHING_DONE };
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
      // Last: a racing process has failed on the tenant's name before it gets here.
      if (!adminPassword && keepGeneratedPassword) await keepGeneratedPassword(password);
    });
  } catch (error) {
    // Another process initialised the database first: its tenant is there now.
    if ((error instanceof ConflictError || error instanceof InputError) && (await deps.store.repos.tenants.count()) > 0) {
      return { ...NOTHING_DONE };
    }
    throw error;
  }
  if (adminPassword) return { initialised: true, generatedAdminPassword: null, passwordKept: false };
  return keepGeneratedPassword ? { initialised: true, generatedAdminPassword: null, passwordKept: true } : { initialised: true, generatedAdminPassword: password, passwordKept: false };
}
