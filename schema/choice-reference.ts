/**
 * Choice reference URLs: `{base_url}/v2.0/schemas/choices.json?field=<name>`.
 *
 * Accepted: any absolute `http(s)` base (`https://site.example/api/v2.0/schemas/choices.json?field=a`)
 * and root-relative paths (`/api/v2.0/schemas/choices.json?field=a`), because documents move
 * between sites and mirrors; the reader resolves against its own base. Not accepted: other
 * relative forms (`v2.0/...`, `../`), fragments, an empty or missing `field`. CONTRACT §4 allows
 * several lists in one reference (`field=a,b`, or repeated `field=`).
 */

export const CHOICES_PATH_SUFFIX = '/v2.0/schemas/choices.json';
/** Choice list names: CONTRACT §4 limits `field` to 40 characters; we also keep them URL-safe. */
export const CHOICE_FIELD_NAME = /^[A-Za-z0-9_-]{1,40}$/;

export interface ChoiceReference {
  fields: string[];
}

export type ChoiceReferenceCheck = ChoiceReference | { reason: string };

/** Whether a `$ref` is meant as a choice reference (right or wrong), so it is checked as one. */
export function looksLikeChoiceReference(ref: string): boolean {
  return /\/schemas\/choices\.json/i.test(ref) || /^choices\.json/i.test(ref);
}

/** The choice list names of a reference, or `null` when it is not a well-formed choice reference. */
export function parseChoiceReference(url: string): ChoiceReference | null {
  const checked = checkChoiceReference(url);
  return 'fields' in checked ? checked : null;
}

/** Like `parseChoiceReference`, with the reason when the URL is malformed (for hints). */
export function checkChoiceReference(url: string): ChoiceReferenceCheck {
  let parsed: URL;
  const absolute = /^https?:\/\//i.test(url);
  if (!absolute && !url.startsWith('/')) {
    return { reason: 'it must be an absolute http(s) URL or a path starting with `/`' };
  }
  try {
    parsed = absolute ? new URL(url) : new URL(url, 'http://relative.invalid');
  } catch {
    return { reason: 'it is not a valid URL' };
  }
  if (!parsed.pathname.endsWith(CHOICES_PATH_SUFFIX)) {
    return { reason: `its path must end with \`${CHOICES_PATH_SUFFIX}\`` };
  }
  if (parsed.hash !== '' || url.includes('#')) return { reason: 'it must not have a `#` fragment' };
  const raw = parsed.searchParams.getAll('field');
  if (raw.length === 0) return { reason: 'it has no `field=<choice list name>` query parameter' };
  const fields: string[] = [];
  for (const name of raw.flatMap((value) => value.split(','))) {
    if (!CHOICE_FIELD_NAME.test(name)) {
      return { reason: `choice list name ${JSON.stringify(name)} must be 1-40 letters, digits, \`_\` or \`-\`` };
    }
    if (!fields.includes(name)) fields.push(name);
  }
  return { fields };
}

/**
 * Builds a reference. `baseUrl` is the site's API base (`https://site.example/api`, or `''` for a
 * root-relative reference); trailing slashes are ignored.
 */
export function choiceReferenceUrl(baseUrl: string, field: string | readonly string[]): string {
  const fields = typeof field === 'string' ? [field] : [...field];
  for (const name of fields) {
    if (!CHOICE_FIELD_NAME.test(name)) throw new Error(`invalid choice list name: ${JSON.stringify(name)}`);
  }
  return `${baseUrl.replace(/\/+$/, '')}${CHOICES_PATH_SUFFIX}?field=${fields.join(',')}`;
}
