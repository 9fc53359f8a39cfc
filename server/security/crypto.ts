import { createHash, hash, randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { WorkGate } from './work-gate.js';

/** A bearer secret: 256 random bits, base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Tokens and codes are stored only as their SHA-256 hex digest. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // Compare digests so that unequal lengths take the same time as equal ones.
  return timingSafeEqual(createHash('sha256').update(left).digest(), createHash('sha256').update(right).digest()) && left.length === right.length;
}

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

const KEY_LENGTH = 32;

/**
 * Slow, salted hash for passwords and client secrets. Format:
 * `scrypt$<N>$<r>$<p>$<salt b64url>$<key b64url>`, so the cost can be raised later and old
 * hashes still verify.
 */
export async function hashSecret(secret: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const r = 8;
  const p = 1;
  const key = await scrypt(secret, salt, KEY_LENGTH, { N: cost, r, p, maxmem: 256 * cost * r + 1024 * 1024 });
  return ['scrypt', cost, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, key] = parts as [string, string, string, string, string, string];
  const N = Number(n);
  const R = Number(r);
  const P = Number(p);
  const expected = Buffer.from(key, 'base64url');
  const actual = await scrypt(secret, Buffer.from(salt, 'base64url'), expected.length, { N, r: R, p: P, maxmem: 256 * N * R + 1024 * 1024 });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Password and client-secret checks on the request path run inside `gate` (see WorkGate), so
 * that floods of guesses cannot take libuv's whole thread pool. `run` throws GateBusyError,
 * before any of `work` runs, when the gate's queue (or the key's share of it) is full.
 */
export class SecretVerifier {
  constructor(private readonly gate: WorkGate) {}

  /** `key` is who asks (the client address): the gate is fair between keys. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.gate.run(key, work);
  }
}
