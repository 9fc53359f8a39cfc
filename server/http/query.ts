import { InputError } from '../domain/errors.js';
import type { AppContext } from './state.js';

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off', '']);

/** Query booleans, case-insensitive (CONTRACT §1): anything unrecognised is 400. */
export function queryBoolean(ctx: AppContext, name: string, fallback = false): boolean {
  const raw = ctx.query[name];
  if (raw === undefined) return fallback;
  const value = (Array.isArray(raw) ? raw[raw.length - 1] ?? '' : raw).toLowerCase();
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw InputError.field(name, 'invalid_boolean', `"${value}" is not a boolean.`, ['Use true or false.']);
}

export function queryString(ctx: AppContext, name: string): string | undefined {
  const raw = ctx.query[name];
  return Array.isArray(raw) ? raw[raw.length - 1] : raw;
}

/** Absolute base URL of the request; proxy headers only when configured to trust a proxy. */
export function requestOrigin(ctx: AppContext, trustProxy: boolean): string {
  const proto = (trustProxy && ctx.get('X-Forwarded-Proto').split(',')[0]?.trim()) || ctx.protocol;
  const host = (trustProxy && ctx.get('X-Forwarded-Host').split(',')[0]?.trim()) || ctx.get('Host') || 'localhost';
  return `${proto}://${host}`;
}
