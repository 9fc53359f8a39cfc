import { randomUUID } from 'node:crypto';
import { hashSecret } from '../../security/crypto.js';
import type { Clock } from '../../db/time.js';
import { type RequestContext, actingUser, hasPermission, requirePermission, requirePrincipal } from '../context.js';
import { ConflictError, InputError, NotAllowedError, NotFoundError } from '../errors.js';
import type { User } from '../model.js';
import type { Repositories, Store } from '../ports.js';
import { type NewUserInput, passwordProblems, validateNewUser } from './validation.js';
import { isUuid } from '../ids.js';

export interface UserServiceDeps {
  store: Store;
  clock: Clock;
  passwordHashCost: number;
  commonPasswords: ReadonlySet<string>;
}

export interface CreateUserOptions {
  isSuperuser?: boolean;
  permissions?: readonly string[];
}

/** Users of the caller's tenant (CONTRACT §8). */
export class UserService {
  constructor(private readonly deps: UserServiceDeps) {}

  async list(ctx: RequestContext): Promise<User[]> {
    const principal = requirePermission(ctx, 'view_user');
    return this.deps.store.repos.users.listInTenant(principal.tenantId);
  }

  /** The caller (or the profile it acts as); applications have no "me". */
  async me(ctx: RequestContext): Promise<User> {
    const user = actingUser(requirePrincipal(ctx));
    if (!user) throw new NotFoundError('An application has no user record.');
    return user;
  }

  /**
   * One user of the tenant: oneself always, anyone else with `view_user`. The permission is
   * decided before the lookup, so that without it every other id is the same 403, whether the
   * user exists, in this tenant or another (no existence oracle).
   */
  async get(ctx: RequestContext, userId: string): Promise<User> {
    const principal = requirePrincipal(ctx);
    const self = actingUser(principal);
    if (self && self.id === userId.toLowerCase()) return self;
    if (!hasPermission(principal, 'view_user')) throw new NotAllowedError();
    const user = isUuid(userId) ? await this.deps.store.repos.users.findInTenant(principal.tenantId, userId.toLowerCase()) : null;
    if (!user) throw new NotFoundError();
    return user;
  }

  async create(ctx: RequestContext, input: unknown): Promise<User> {
    const principal = requirePermission(ctx, 'add_user');
    const prepared = await this.prepare(input);
    return this.deps.store.transaction((repos) => this.insert(repos, principal.tenantId, prepared));
  }

  /**
   * Validates a new user and hashes the password, outside any transaction (the hash is slow
   * on purpose). Shared by the API and the admin commands, so both apply the same rules.
   */
  async prepare(input: unknown): Promise<PreparedUser> {
    if (!input || typeof input !== 'object' || Array.isArray(input)) throw new InputError('Expected a JSON object.');
    const result = validateNewUser(input as NewUserInput, this.deps.commonPasswords);
    if (!result.ok) throw new InputError('The user is not valid.', result.errors);
    const { password, ...fields } = result.user;
    return { ...fields, passwordHash: await hashSecret(password, this.deps.passwordHashCost) };
  }

  /** Checks a new password of an existing user against the same rules, and hashes it. */
  async hashNewPassword(user: User, password: string): Promise<string> {
    const problems = passwordProblems(password, { username: user.username, firstName: user.firstName, lastName: user.lastName, email: user.email }, this.deps.commonPasswords);
    if (problems.length) throw new InputError('The password is not acceptable.', { password: problems });
    return hashSecret(password, this.deps.passwordHashCost);
  }

  /** Inserts a prepared user into a tenant inside the caller's transaction. */
  async insert(repos: Repositories, tenantId: string, prepared: PreparedUser, options: CreateUserOptions = {}): Promise<User> {
    const taken = () => InputError.field('username', 'unique', 'A user with that username already exists.', ['Choose another username.']);
    if (await repos.users.usernameTaken(prepared.username)) throw taken();
    const now = this.deps.clock.now();
    const user: User = {
      id: randomUUID(),
      tenantId,
      ...prepared,
      isSuperuser: options.isSuperuser ?? false,
      isActive: true,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await repos.users.insert(user);
    } catch (error) {
      // Two creations of one username raced past the check above.
      if (error instanceof ConflictError) throw taken();
      throw error;
    }
    await repos.users.grantPermissions(user.id, options.permissions ?? []);
    return user;
  }
}

export interface PreparedUser {
  username: string;
  passwordHash: string;
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
}
