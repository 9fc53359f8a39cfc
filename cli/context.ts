/**
 * What every command starts from: the parsed environment, the chosen profile, how to print, and
 * (for commands that need them) a connection to the server and the mirror. Commands stay thin:
 * they parse options, call sync/ or a library function, and render.
 */
import fs from 'node:fs';
import type { Knex } from 'knex';
import { CredentialsFile } from '../sync/auth/credentials-file.js';
import type { Session } from '../sync/auth/session.js';
import type { WireLog } from '../sync/counting.js';
import type { Transport } from '../sync/http.js';
import type { UserIdentity } from '../sync/mirror/identity.js';
import type { MirrorStore } from '../sync/mirror/store.js';
import { UserFacingError } from './errors.js';
import type { CliIo } from './main.js';
import { StatusLine } from './output/status-line.js';
import { createStyle, isTty, type Style } from './output/style.js';
import { normaliseServerUrl } from './server-url.js';
import { loadSettings, mirrorPath, profileName, type CliSettings } from './settings.js';

export interface CommonOptions {
  profile?: string;
  json?: boolean;
}

export interface CommandContext {
  io: CliIo;
  settings: CliSettings;
  profile: string;
  json: boolean;
  /** stdout is a terminal (tables may be coloured); stderr is one (live progress allowed). */
  stdoutTty: boolean;
  stderrTty: boolean;
  out: Style;
  err: Style;
  credentials: CredentialsFile;
  now: () => number;
  print(text: string): void;
  warn(text: string): void;
  info(text: string): void;
  /** A transient line on a terminal (cleared when the command ends); nothing otherwise. */
  status: StatusLine;
  /** This laptop as the server sees it: filled once a mirror and a session are known (see bindMirror). */
  device: DeviceState;
}

export interface DeviceState {
  /** The mirror's client id, sent as `Fieldops-Client-Id` on every request once known. */
  clientId: string | null;
  /** Who the session is (a profile's login; null with FIELDOPS_TOKEN, which does not say). */
  user: UserIdentity | null;
}

export function commandContext(io: CliIo, options: CommonOptions): CommandContext {
  const settings = loadSettings(io.env);
  const stdoutTty = isTty(io.stdout);
  const stderrTty = isTty(io.stderr);
  const err = createStyle(stderrTty && !settings.noColor);
  const ctx: CommandContext = {
    io,
    settings,
    profile: profileName(settings, options.profile),
    json: Boolean(options.json),
    stdoutTty,
    stderrTty,
    out: createStyle(stdoutTty && !settings.noColor),
    err,
    credentials: new CredentialsFile(settings.configDir, (message) => ctx.warn(message)),
    now: Date.now,
    print: (text) => io.stdout.write(text.endsWith('\n') ? text : text + '\n'),
    warn: (text) => {
      ctx.status.clear();
      io.stderr.write(`${err.yellow('warning:')} ${text}\n`);
    },
    status: new StatusLine(io.stderr, stderrTty),
    info: (text) => io.stderr.write(text + '\n'),
    device: { clientId: null, user: null },
  };
  return ctx;
}

export interface Connection {
  session: Session;
  /** Retrying, with the session's bearer token. */
  transport: Transport;
  wire: WireLog;
  close(): Promise<void>;
}

/** The network stack: undici → wire counting → retries with backoff → bearer token. */
export async function baseTransport(ctx: CommandContext, options: { retryUnsafe?: boolean } = {}): Promise<{ transport: Transport; wire: WireLog; close(): Promise<void> }> {
  const [{ createUndiciTransport }, { countingTransport }, { withRetries }] = await Promise.all([
    import('../sync/transport.js'),
    import('../sync/counting.js'),
    import('../sync/retry.js'),
  ]);
  const undici = createUndiciTransport({ timeoutMs: ctx.settings.timeoutMs });
  const counted = countingTransport(undici);
  let announced = false;
  const transport = withRetries(counted.transport, {
    attempts: ctx.settings.retries,
    baseDelayMs: ctx.settings.retryDelayMs,
    retryUnsafe: options.retryUnsafe,
    // One line says that it is retrying; a terminal also gets a spinner line; the final error follows.
    onRetry: ({ attempt, delayMs, reason, url }) => {
      const what = `${new URL(url).pathname}: ${reason}`;
      if (!announced) ctx.warn(`${what}; retrying with backoff (up to ${ctx.settings.retries - 1} times per request; FIELDOPS_RETRIES)`);
      announced = true;
      ctx.status.update(`${what}; retrying in ${delayMs} ms (${attempt}/${ctx.settings.retries - 1})`);
    },
  });
  return { transport: withClientId(transport, ctx.device), wire: counted.log, close: () => undici.close() };
}

/** Adds `Fieldops-Client-Id` once the mirror's id is known (read at each request: a first sync learns it mid-command). */
function withClientId(transport: Transport, device: DeviceState): Transport {
  return (request) => (device.clientId ? transport({ ...request, headers: { ...request.headers, 'fieldops-client-id': device.clientId } }) : transport(request));
}

/** A session from FIELDOPS_TOKEN or the profile's saved tokens. */
export async function connect(ctx: CommandContext, options: { server?: string; retryUnsafe?: boolean } = {}): Promise<Connection> {
  const stack = await baseTransport(ctx, options);
  const { authorizedTransport, profileSession, tokenSession } = await import('../sync/auth/session.js');
  try {
    let session: Session;
    if (ctx.settings.token) {
      const saved = await ctx.credentials.profile(ctx.profile);
      const server = options.server ?? ctx.settings.server ?? saved?.server;
      if (!server) throw new UserFacingError('FIELDOPS_TOKEN is set but no server is known', 'set FIELDOPS_SERVER (or pass --server) to the server the token is for', 2);
      session = tokenSession(normaliseServerUrl(server), ctx.settings.token);
    } else {
      session = await profileSession({ file: ctx.credentials, name: ctx.profile, transport: stack.transport, now: ctx.now });
      ctx.device.user = { server: session.server, userId: session.userId, username: session.username };
    }
    const transport = authorizedTransport(stack.transport, session);
    await bindExistingMirror(ctx, session, transport);
    return { session, transport, wire: stack.wire, close: stack.close };
  } catch (error) {
    await stack.close();
    throw error;
  }
}

/** The profile's mirror; with `create: false`, a user-facing error when it was never synced. */
export async function openMirror(ctx: CommandContext, options: { create: true }): Promise<MirrorStore>;
export async function openMirror(ctx: CommandContext, options: { create: false; optional: true }): Promise<MirrorStore | null>;
export async function openMirror(ctx: CommandContext, options: { create: false; optional?: false }): Promise<MirrorStore>;
export async function openMirror(ctx: CommandContext, options: { create: boolean; optional?: boolean }): Promise<MirrorStore | null> {
  const file = mirrorPath(ctx.settings, ctx.profile);
  const [{ openMirrorDatabase }, { KnexMirrorStore }] = await Promise.all([import('../sync/mirror/open.js'), import('../sync/mirror/knex-store.js')]);
  const knex = await openMirrorDatabase(file, { create: options.create });
  if (knex) {
    try {
      await bindMirror(ctx, knex);
    } catch (error) {
      await knex.destroy();
      throw error;
    }
    return new KnexMirrorStore(knex);
  }
  if (options.optional) return null;
  throw new UserFacingError(`no mirror yet for profile "${ctx.profile}" (${file})`, `run \`fieldops sync${ctx.profile === 'default' ? '' : ` --profile ${ctx.profile}`}\` once while online`);
}

/**
 * Ties the mirror to the session: the session's user becomes the mirror's identity (another
 * user's or server's pulled records are deleted first; sync/mirror/identity.ts), and the
 * mirror's client id is sent from now on. Without a session's user, only the client id is read.
 */
export async function bindMirror(ctx: CommandContext, knex: Knex): Promise<void> {
  const { adoptIdentity, describeUser, readMirrorIdentity } = await import('../sync/mirror/identity.js');
  if (ctx.device.user) {
    const { previous, reset } = await adoptIdentity(knex, ctx.device.user);
    if (reset && previous) ctx.warn(`the mirror held records pulled for ${describeUser(previous)} on ${previous.server}: deleted (their unsent records stay in the outbox, held for them)`);
  }
  ctx.device.clientId = (await readMirrorIdentity(knex)).clientId;
}

/**
 * bindMirror for a mirror that already exists (commands that connect before opening it). A
 * mirror that cannot be opened is left to the commands that use it to report.
 */
async function bindExistingMirror(ctx: CommandContext, session: Session, transport: Transport): Promise<void> {
  const file = mirrorPath(ctx.settings, ctx.profile);
  if (!fs.existsSync(file)) return;
  const [{ openMirrorDatabase }, { fetchMe }] = await Promise.all([import('../sync/mirror/open.js'), import('../sync/auth/login.js')]);
  let knex: Knex | null = null;
  try {
    knex = await openMirrorDatabase(file, { create: false });
    if (knex && session.source === 'token') {
      // FIELDOPS_TOKEN does not say whose it is: asked once, so the mirror is given to that user.
      const me = await fetchMe(transport, session.server).catch(() => null);
      if (me) ctx.device.user = { server: session.server, userId: typeof me.id === 'string' ? me.id : null, username: me.username };
    }
    if (knex) await bindMirror(ctx, knex);
  } catch {
    // Reported by the command that reads the mirror (with its hint); whoami and the like still work.
  } finally {
    await knex?.destroy();
  }
}

export function printJson(ctx: CommandContext, value: unknown): void {
  ctx.io.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
