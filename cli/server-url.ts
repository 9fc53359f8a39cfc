import { UserFacingError } from './errors.js';

/**
 * `http(s)://host[:port][/path]` without a trailing slash, query or fragment. A URL without a
 * scheme is refused rather than guessed: `example.org:8000` could be either, and guessing https
 * for a plain-http server ends in TLS errors, guessing http sends the password in clear.
 */
export function normaliseServerUrl(raw: string): string {
  const given = raw.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(given)) {
    const bare = given.replace(/^\/+/, '');
    throw new UserFacingError(
      `the server URL ${JSON.stringify(raw)} has no scheme (http:// or https://)`,
      `give it as https://${bare} (a server with TLS) or http://${bare} (without TLS: only on this machine or a trusted network)`,
      2,
    );
  }
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UserFacingError(`invalid server URL ${JSON.stringify(raw)}`, 'give it as https://host[:port]', 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserFacingError(`invalid server URL ${JSON.stringify(raw)}: only http and https are supported`, 'give it as https://host[:port]', 2);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new UserFacingError(`invalid server URL ${JSON.stringify(raw)}: no query, fragment or credentials allowed`, 'give it as https://host[:port]', 2);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Plain http is fine on this machine; anywhere else the password and tokens travel in clear. */
export function isLoopback(server: string): boolean {
  const host = new URL(server).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}
