import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { ThrottleConfig } from '../config.js';
import type { Clock } from '../db/time.js';
import { hashSecret } from '../security/crypto.js';
import { InputError, NotFoundError } from './errors.js';
import { API_PROFILES, type ApiProfile, GRANT_TYPES, type GrantType, type OAuthClient, type Tenant, type User } from './model.js';
import { isValidRedirectUri } from './oauth/redirect-uri.js';
import { CredentialThrottle } from './oauth/throttle.js';
import { PERMISSIONS, isPermission } from './permissions.js';
import type { Repositories, Store } from './ports.js';
import type { UserService } from './users/service.js';
import { type ConflictPolicy, parseConflictPolicy } from './merge/policy.js';

const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export interface NewUserCommand {
  tenant: string;
  username: string;
  password: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  superuser?: boolean;
  permissions?: string[];
}

export interface NewClientCommand {
  tenant: string;
  clientId: string;
  secret?: string;
  grants?: string[];
  redirectUris?: string[];
  permissions?: string[];
  /** `fieldops` or `earthranger` (CONTRACT §11); absent: the server's default. */
  profile?: string;
}

/** What `unlock` clears: the failed attempts counted against usernames, client addresses, client_ids. */
export interface UnlockCommand {
  usernames?: string[];
  addresses?: string[];
  clientIds?: string[];
}

/** One key cleared, and the failed attempts its current window had counted. */
export type UnlockResult = ({ username: string } | { address: string } | { clientId: string }) & { failures: number };

/** A name an admin command looked up is not there; `hint` says how to make it so. */
export class AdminLookupError extends NotFoundError {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/**
 * Operations an administrator runs directly on the database (`fieldops admin ...`). They
 * validate exactly as the API does; failures are InputError/NotFoundError with a clear message.
 */
export class AdminService {
  /** `rightsChanged` is told whenever users' or clients' rights change (resolved credentials are cached). */
  constructor(private readonly deps: { store: Store; users: UserService; clock: Clock; passwordHashCost: number; throttle: ThrottleConfig; rightsChanged(): void }) {}

  async createTenant(name: string): Promise<Tenant> {
    if (!TENANT_NAME.test(name)) {
      throw InputError.field('name', 'invalid', 'A tenant name is 1-100 letters, digits, dots, dashes or underscores.', ['For example: north-reserve']);
    }
    if (await this.deps.store.repos.tenants.findByName(name)) throw InputError.field('name', 'unique', `Tenant "${name}" already exists.`, ['Choose another name, or use that tenant.']);
    const tenant = { id: randomUUID(), name, createdAt: this.deps.clock.now() };
    await this.deps.store.repos.tenants.insert(tenant);
    return tenant;
  }

  async createUser(command: NewUserCommand): Promise<User> {
    const permissions = checkPermissions(command.permissions ?? []);
    const tenant = await this.tenant(command.tenant);
    const prepared = await this.deps.users.prepare({
      username: command.username,
      password: command.password,
      email: command.email,
      first_name: command.firstName,
      last_name: command.lastName,
      phone: command.phone,
    });
    return this.deps.store.transaction((repos) =>
      this.deps.users.insert(repos, tenant.id, prepared, { isSuperuser: command.superuser ?? false, permissions }),
    );
  }

  async createClient(command: NewClientCommand): Promise<OAuthClient> {
    const tenant = await this.tenant(command.tenant);
    if (!CLIENT_ID.test(command.clientId)) throw InputError.field('client_id', 'invalid', 'A client id is 1-100 letters, digits, dots, dashes or underscores.', ['For example: north-gateway']);
    const grants = command.grants?.length ? command.grants : ['password', 'refresh_token'];
    const unknown = grants.filter((grant) => !GRANT_TYPES.includes(grant as GrantType));
    if (unknown.length) throw InputError.field('grant', 'invalid', `Unknown grant type(s): ${unknown.join(', ')}.`, [`Use ${GRANT_TYPES.join(', ')}.`]);
    const redirectUris = command.redirectUris ?? [];
    const badUris = redirectUris.filter((uri) => !isValidRedirectUri(uri));
    if (badUris.length) throw InputError.field('redirect_uri', 'invalid', `Invalid redirect URI(s): ${badUris.join(', ')}.`, ['Use an absolute URI without a fragment.']);
    if (grants.includes('authorization_code') && redirectUris.length === 0) {
      throw InputError.field('redirect_uri', 'required', 'The authorization_code grant needs at least one redirect URI.', ['Give one with --redirect-uri <uri>.']);
    }
    if (command.secret !== undefined && command.secret.length < 16) {
      throw InputError.field('secret', 'too_short', 'A client secret has at least 16 characters.', ['Generate one with: openssl rand -base64 32']);
    }
    const permissions = checkPermissions(command.permissions ?? []);
    const profile = command.profile === undefined ? null : checkProfile(command.profile);
    if (await this.deps.store.repos.clients.findByClientId(command.clientId)) throw InputError.field('client_id', 'unique', `Client "${command.clientId}" already exists.`, ['Choose another client id, or change that client (set-client-profile).']);
    const client: OAuthClient = {
      id: randomUUID(),
      tenantId: tenant.id,
      clientId: command.clientId,
      name: command.clientId,
      secretHash: command.secret !== undefined ? await hashSecret(command.secret, this.deps.passwordHashCost) : null,
      grantTypes: [...new Set(grants)] as GrantType[],
      redirectUris,
      profile,
      createdAt: this.deps.clock.now(),
    };
    await this.deps.store.transaction(async (repos) => {
      await repos.clients.insert(client);
      await repos.clients.grantPermissions(client.id, permissions);
    });
    return client;
  }

  /** Changes the response profile of a client's tokens, those already issued included. */
  async setClientProfile(clientId: string, profile: string): Promise<OAuthClient> {
    const checked = profile === 'default' ? null : checkProfile(profile);
    const client = await this.deps.store.repos.clients.findByClientId(clientId);
    if (!client) throw new AdminLookupError(`No client "${clientId}".`, `register it with: fieldops admin create-client --tenant <tenant> --client-id ${clientId}`);
    await this.deps.store.repos.clients.setProfile(client.id, checked);
    this.deps.rightsChanged();
    return { ...client, profile: checked };
  }

  async grant(username: string, codenames: string[]): Promise<User> {
    const permissions = checkPermissions(codenames);
    const user = await this.deps.store.repos.users.findByUsername(username);
    if (!user) throw new AdminLookupError(`No user "${username}".`);
    // A transaction as every write (a user's rights decide what the sync feed may serve them).
    await this.deps.store.transaction((repos) => repos.users.grantPermissions(user.id, permissions));
    this.deps.rightsChanged();
    return user;
  }

  /**
   * Sets a user's password (the first-start recovery: `fieldops admin set-password`). Same rules
   * as a new user's; every token the user holds is revoked, so old sessions end with the old
   * password, and the username's failed logins are forgotten, so a locked-out user can log in
   * with the new one at once (the failures of the client address are `unlock --address`'s).
   */
  async setPassword(username: string, password: string): Promise<{ user: User; failedLogins: number }> {
    const user = await this.deps.store.repos.users.findByUsername(username);
    if (!user) throw new AdminLookupError(`No user "${username}".`);
    const hash = await this.deps.users.hashNewPassword(user, password);
    const failedLogins = await this.deps.store.transaction(async (repos) => {
      const now = this.deps.clock.now();
      await repos.users.setPasswordHash(user.id, hash, now);
      await repos.tokens.revokeAllOfUser(user.id, now);
      return this.throttle(repos).forget('user', user.username);
    });
    this.deps.rightsChanged();
    return { user, failedLogins };
  }

  /**
   * Forgets the failed attempts counted against usernames (they need not exist: guesses are
   * counted too), client addresses and client_ids, lifting their 429s at once in every server
   * process. An IPv4 address is cleared in its IPv4-mapped IPv6 form too (a dual-stack listener
   * sees `::ffff:a.b.c.d`).
   */
  async unlock(command: UnlockCommand): Promise<UnlockResult[]> {
    const addresses = command.addresses ?? [];
    const bad = addresses.filter((address) => net.isIP(address) === 0);
    if (bad.length) throw InputError.field('address', 'invalid', `Not an IP address: ${bad.join(', ')}.`, ['Give the client address as the server sees it, e.g. 192.0.2.10 or 2001:db8::1.']);
    return this.deps.store.transaction(async (repos) => {
      const throttle = this.throttle(repos);
      const results: UnlockResult[] = [];
      for (const username of command.usernames ?? []) results.push({ username, failures: await throttle.forget('user', username) });
      for (const address of addresses) {
        let failures = 0;
        for (const form of addressForms(address)) failures += await throttle.forget('address', form);
        results.push({ address, failures });
      }
      for (const clientId of command.clientIds ?? []) results.push({ clientId, failures: await throttle.forget('client', clientId) });
      return results;
    });
  }

  private throttle(repos: Repositories): CredentialThrottle {
    return new CredentialThrottle(repos.throttle, this.deps.throttle, this.deps.clock);
  }

  /** The tenant's conflict policy (issue 26 §3). */
  async conflictPolicy(tenantName: string): Promise<ConflictPolicy> {
    const tenant = await this.tenant(tenantName);
    return this.deps.store.repos.tenants.conflictPolicy(tenant.id);
  }

  /** Sets what a same-field conflict does in a tenant: `hold`, `server-wins` or `last-writer-wins` (either spelling). */
  async setConflictPolicy(tenantName: string, policy: string): Promise<ConflictPolicy> {
    const checked = parseConflictPolicy(policy);
    const tenant = await this.tenant(tenantName);
    await this.deps.store.transaction((repos) => repos.tenants.setConflictPolicy(tenant.id, checked));
    return checked;
  }

  /** Lets `username` act as `profileUsername` through the User-Profile header. */
  async addProfile(username: string, profileUsername: string): Promise<void> {
    const { users } = this.deps.store.repos;
    const user = await users.findByUsername(username);
    const profile = await users.findByUsername(profileUsername);
    if (!user || !profile || user.tenantId !== profile.tenantId) throw new NotFoundError('Both users must exist in the same tenant.');
    await users.addProfile(user.id, profile.id);
    this.deps.rightsChanged();
  }

  private async tenant(name: string): Promise<Tenant> {
    const tenant = await this.deps.store.repos.tenants.findByName(name);
    if (!tenant) throw new AdminLookupError(`No tenant "${name}".`, `create it with: fieldops admin create-tenant --name ${name}`);
    return tenant;
  }
}

/** The forms one client address may be counted under: as given, and IPv4 <-> IPv4-mapped IPv6. */
function addressForms(address: string): string[] {
  if (net.isIPv4(address)) return [address, `::ffff:${address}`];
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  return mapped ? [address, mapped] : [address];
}

function checkProfile(profile: string): ApiProfile {
  if (!API_PROFILES.includes(profile as ApiProfile)) {
    throw InputError.field('profile', 'invalid', `Unknown response profile "${profile}".`, [`Use ${API_PROFILES.join(' or ')}.`]);
  }
  return profile as ApiProfile;
}

function checkPermissions(codenames: string[]): string[] {
  const unknown = codenames.filter((codename) => !isPermission(codename));
  if (unknown.length) {
    throw InputError.field('permission', 'invalid', `Unknown permission(s): ${unknown.join(', ')}.`, [`Known permissions: ${PERMISSIONS.join(' ')}`]);
  }
  return [...new Set(codenames)];
}
