const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Redirect URI matching. Exact string comparison, except that a registered loopback URI
 * (`http://127.0.0.1/...`, `http://[::1]/...`, `http://localhost/...`) matches any port, as
 * native apps listen on an ephemeral one (RFC 8252 §7.3). Nothing else is normalised: a
 * different path, query, scheme or host is a different URI, and a fragment is never allowed.
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  // A redirect URI never carries a fragment (RFC 6749 §3.1.2), whatever was registered.
  if (requested.includes('#')) return false;
  if (registered.includes(requested)) return true;
  const candidate = parse(requested);
  if (!candidate || !LOOPBACK_HOSTS.has(candidate.hostname) || candidate.protocol !== 'http:') return false;
  return registered.some((entry) => {
    const allowed = parse(entry);
    return (
      allowed !== null &&
      allowed.protocol === 'http:' &&
      allowed.hostname === candidate.hostname &&
      allowed.pathname === candidate.pathname &&
      allowed.search === candidate.search
    );
  });
}

/** Registered URIs must be absolute, without a fragment (RFC 6749 §3.1.2). */
export function isValidRedirectUri(value: string): boolean {
  const parsed = parse(value);
  return parsed !== null && !value.includes('#') && (parsed.protocol === 'https:' || parsed.protocol === 'http:' || /^[a-z][a-z0-9+.-]*:$/.test(parsed.protocol));
}

/** Appends parameters to a callback URL, keeping its existing query exactly as registered. */
export function appendQuery(uri: string, params: Record<string, string | undefined>): string {
  const extra = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
  if (!extra) return uri;
  return uri + (uri.includes('?') ? (uri.endsWith('?') || uri.endsWith('&') ? '' : '&') : '?') + extra;
}

function parse(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}
