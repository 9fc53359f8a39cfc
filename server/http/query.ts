import { InputError } from '../domain/errors.js';
import type { AppContext } from './state.js';
import { callerProfile } from './presentation/caller-profile.js';

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off', '']);

/**
 * Query booleans, case-insensitive (CONTRACT §1): anything unrecognised is 400, except in the
 * earthranger profile, where it is false as in the original (issue 27: `include_inactive=maybe`).
 */
export function queryBoolean(ctx: AppContext, name: string, fallback = false): boolean {
  const raw = ctx.query[name];
  if (raw === undefined) return fallback;
  const value = (Array.isArray(raw) ? raw[raw.length - 1] ?? '' : raw).toLowerCase();
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  if (callerProfile(ctx) === 'earthranger') return false;
  throw InputError.field(name, 'invalid_boolean', `"${value}" is not a boolean.`, ['Use true or false.']);
}

export function queryString(ctx: AppContext, name: string): string | undefined {
  const raw = ctx.query[name];
  return Array.isArray(raw) ? raw[raw.length - 1] : raw;
}

/** A host name or IPv4 address, or a bracketed IPv6 address, and an optional port. */
const HOST = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,251}[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]{2,45}\])(?::([0-9]{1,5}))?$/;

/**
 * Absolute base URL of the request; proxy headers only when configured to trust a proxy.
 * Everything that builds an absolute URL (`next`/`previous`, `$id`, `url`, `image_url`) goes
 * through here, so it is where a malformed `Host` (or forwarded host or scheme) is refused:
 * 400 (RFC 9112 §3.2), never a throw deeper down (a 500) nor garbage in the links we serve.
 */
export function requestOrigin(ctx: AppContext, trustProxy: boolean): string {
  const proto = ((trustProxy && ctx.get('X-Forwarded-Proto').split(',')[0]?.trim()) || ctx.protocol).toLowerCase();
  const host = (trustProxy && ctx.get('X-Forwarded-Host').split(',')[0]?.trim()) || ctx.get('Host') || 'localhost';
  const port = HOST.exec(host)?.[1];
  if ((proto !== 'http' && proto !== 'https') || !HOST.test(host) || (port !== undefined && Number(port) > 65535)) {
    throw InputError.field('Host', 'invalid_host', 'The Host header (or the forwarded host or scheme) is not a valid host[:port].', ['Send the host name the server is reached at, for example Host: fieldops.example.org']);
  }
  return `${proto}://${host}`;
}

/** The request's own URL, absolute (origin checked by requestOrigin). */
export function requestUrl(ctx: AppContext, trustProxy: boolean): URL {
  return new URL(ctx.originalUrl, requestOrigin(ctx, trustProxy));
}
