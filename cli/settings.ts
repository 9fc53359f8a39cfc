/**
 * The CLI's environment, read once per run into a typed, frozen object. Nothing else in cli/ or
 * sync/ reads `process.env` (tests pass their own env through `CliIo`).
 *
 * | Variable | Meaning |
 * |---|---|
 * | `FIELDOPS_PROFILE` | profile when `--profile` is not given (default `default`) |
 * | `FIELDOPS_TOKEN` | an access token to use as is (CI); never refreshed or stored |
 * | `FIELDOPS_SERVER` | server URL for `FIELDOPS_TOKEN`, or for `login` without `--server` |
 * | `FIELDOPS_CONFIG_DIR` | where credentials.json lives (default `$XDG_CONFIG_HOME/fieldops`, `~/.config/fieldops`) |
 * | `FIELDOPS_MIRROR` | the mirror file (default `$XDG_DATA_HOME/fieldops/<profile>.sqlite3`, `~/.local/share/...`) |
 * | `FIELDOPS_RETRIES`, `FIELDOPS_RETRY_DELAY_MS` | tries per request on network errors and 5xx (4), first backoff (250 ms) |
 * | `FIELDOPS_HTTP_TIMEOUT_MS` | time allowed for response headers and between body chunks (30000) |
 * | `NO_COLOR` | no colours when set to anything but an empty string |
 * | `GITHUB_ACTIONS` | `true`: `fieldops lint` defaults to `--format github` |
 */
import os from 'node:os';
import path from 'node:path';
import { UserFacingError } from './errors.js';

export interface CliSettings {
  readonly profile: string | null;
  readonly token: string | null;
  readonly server: string | null;
  readonly configDir: string;
  readonly dataDir: string;
  readonly mirrorOverride: string | null;
  readonly retries: number;
  readonly retryDelayMs: number;
  readonly timeoutMs: number;
  readonly noColor: boolean;
  readonly githubActions: boolean;
}

// XDG: a relative path in these variables is invalid and must be ignored.
const absolute = (value: string | undefined): string | null => (value && path.isAbsolute(value) ? value : null);

export function loadSettings(env: NodeJS.ProcessEnv): CliSettings {
  const home = env.HOME || os.homedir();
  return Object.freeze({
    profile: env.FIELDOPS_PROFILE || null,
    token: env.FIELDOPS_TOKEN || null,
    server: env.FIELDOPS_SERVER || null,
    configDir: absolute(env.FIELDOPS_CONFIG_DIR) ?? path.join(absolute(env.XDG_CONFIG_HOME) ?? path.join(home, '.config'), 'fieldops'),
    dataDir: path.join(absolute(env.XDG_DATA_HOME) ?? path.join(home, '.local', 'share'), 'fieldops'),
    mirrorOverride: env.FIELDOPS_MIRROR ? path.resolve(env.FIELDOPS_MIRROR) : null,
    retries: integer(env.FIELDOPS_RETRIES, 'FIELDOPS_RETRIES', 4, 1, 20),
    retryDelayMs: integer(env.FIELDOPS_RETRY_DELAY_MS, 'FIELDOPS_RETRY_DELAY_MS', 250, 0, 60_000),
    timeoutMs: integer(env.FIELDOPS_HTTP_TIMEOUT_MS, 'FIELDOPS_HTTP_TIMEOUT_MS', 30_000, 100, 600_000),
    noColor: Boolean(env.NO_COLOR),
    githubActions: env.GITHUB_ACTIONS === 'true',
  });
}

function integer(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UserFacingError(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`, `unset it or fix its value`, 2);
  }
  return value;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** `--profile`, else FIELDOPS_PROFILE, else `default`. Names are file names: kept simple. */
export function profileName(settings: CliSettings, option: string | undefined): string {
  const name = option ?? settings.profile ?? 'default';
  if (!PROFILE_NAME.test(name)) {
    throw new UserFacingError(`invalid profile name ${JSON.stringify(name)}`, 'use letters, digits, `.`, `_` or `-` (at most 64 characters)', 2);
  }
  return name;
}

export function mirrorPath(settings: CliSettings, profile: string): string {
  return settings.mirrorOverride ?? path.join(settings.dataDir, `${profile}.sqlite3`);
}
