/**
 * The credentials file: one JSON file under the XDG config directory holding, per profile, the
 * server, the username, the OAuth endpoints and the current tokens (never the password).
 *
 * Contract:
 * - the file and its directory are created 0600/0700 and written atomically (temporary file in
 *   the same directory, fsync, rename), so a crash leaves the old or the new file;
 * - a file readable by others is tightened to 0600 on read, with a warning;
 * - `update` runs under a lock file, so two fieldops processes refreshing tokens at once do not
 *   both spend the same refresh token (the server would revoke the whole family);
 * - a folder that cannot be read or written (a path under a regular file, a read-only or
 *   immutable folder, a full disk) is a `ClientFailure` naming the folder and FIELDOPS_CONFIG_DIR,
 *   never a stack.
 */
import fs from 'node:fs';
import path from 'node:path';
import { failure } from '../errors.js';
import { withFileLock } from '../file-lock.js';
import { fsFailure } from '../fs-failure.js';

export interface StoredProfile {
  server: string;
  username: string;
  /** The user's id on the server (from `users/me` at login); absent in profiles saved before it was kept. */
  userId?: string | null;
  clientId: string;
  tokenEndpoint: string;
  revocationEndpoint: string | null;
  accessToken: string;
  refreshToken: string | null;
  /** Epoch milliseconds. */
  expiresAt: number;
  tokenType: string;
  loggedInAt: string;
}

export interface CredentialsData {
  profiles: Record<string, StoredProfile>;
}

const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 15_000;

export class CredentialsFile {
  readonly path: string;
  private readonly lockPath: string;

  constructor(
    readonly directory: string,
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.path = path.join(directory, 'credentials.json');
    this.lockPath = this.path + '.lock';
  }

  /** How to fix or move the folder, for failures of the file system. */
  get folderHint(): string {
    return `make ${this.directory} a folder you can write (check its parent folders too), or set FIELDOPS_CONFIG_DIR (or XDG_CONFIG_HOME) to one`;
  }

  async read(): Promise<CredentialsData> {
    let text: string;
    try {
      const stat = await fs.promises.stat(this.path);
      if ((stat.mode & 0o077) !== 0) {
        await fs.promises.chmod(this.path, 0o600);
        this.warn(`${this.path} was readable by other users; its mode is now 0600`);
      }
      text = await fs.promises.readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
      throw fsFailure(error, `read the credentials file ${this.path}`, this.folderHint);
    }
    try {
      return fromFile(JSON.parse(text));
    } catch {
      throw failure('input', `${this.path} is not a valid credentials file`, 'delete it and log in again with `fieldops login`');
    }
  }

  async profile(name: string): Promise<StoredProfile | undefined> {
    return (await this.read()).profiles[name];
  }

  /** Reads, lets `change` edit, writes; all under the lock. `change` may do I/O (a token refresh). */
  async update<T>(change: (data: CredentialsData) => Promise<T> | T): Promise<T> {
    await this.makeFolder();
    const busy = { message: `${this.lockPath} is held by another fieldops process`, hint: 'wait for it to finish, or delete the lock file if no fieldops is running' };
    return withFileLock(this.lockPath, async () => {
      const data = await this.read();
      const result = await change(data);
      await this.write(data);
      return result;
    }, { waitMs: LOCK_WAIT_MS, staleMs: LOCK_STALE_MS, busy, folderHint: this.folderHint });
  }

  private async makeFolder(): Promise<void> {
    try {
      await fs.promises.mkdir(this.directory, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw fsFailure(error, `create the folder ${this.directory} for the credentials`, this.folderHint);
    }
  }

  private async write(data: CredentialsData): Promise<void> {
    await this.makeFolder();
    const temporary = `${this.path}.${process.pid}.tmp`;
    try {
      const handle = await fs.promises.open(temporary, 'w', 0o600);
      try {
        await handle.writeFile(JSON.stringify(toFile(data), null, 2) + '\n');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.promises.rename(temporary, this.path);
    } catch (error) {
      await fs.promises.rm(temporary, { force: true }).catch(() => {});
      throw fsFailure(error, `save the credentials in ${this.path}`, this.folderHint);
    }
  }
}

// The file uses snake_case keys, like the API it stores tokens of.
function toFile(data: CredentialsData): unknown {
  const profiles: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(data.profiles)) {
    profiles[name] = {
      server: p.server,
      username: p.username,
      ...(p.userId ? { user_id: p.userId } : {}),
      client_id: p.clientId,
      token_endpoint: p.tokenEndpoint,
      revocation_endpoint: p.revocationEndpoint,
      token_type: p.tokenType,
      access_token: p.accessToken,
      refresh_token: p.refreshToken,
      expires_at: new Date(p.expiresAt).toISOString(),
      logged_in_at: p.loggedInAt,
    };
  }
  return { version: 1, profiles };
}

function fromFile(raw: any): CredentialsData {
  if (!raw || typeof raw !== 'object' || typeof raw.profiles !== 'object') throw new Error('bad file');
  const profiles: Record<string, StoredProfile> = {};
  for (const [name, p] of Object.entries<any>(raw.profiles)) {
    if (typeof p?.server !== 'string' || typeof p.access_token !== 'string') throw new Error('bad profile');
    profiles[name] = {
      server: p.server,
      username: String(p.username ?? ''),
      ...(typeof p.user_id === 'string' ? { userId: p.user_id } : {}),
      clientId: String(p.client_id ?? 'fieldops-cli'),
      tokenEndpoint: String(p.token_endpoint),
      revocationEndpoint: typeof p.revocation_endpoint === 'string' ? p.revocation_endpoint : null,
      tokenType: String(p.token_type ?? 'Bearer'),
      accessToken: p.access_token,
      refreshToken: typeof p.refresh_token === 'string' ? p.refresh_token : null,
      expiresAt: Date.parse(p.expires_at) || 0,
      loggedInAt: String(p.logged_in_at ?? ''),
    };
  }
  return { profiles };
}
