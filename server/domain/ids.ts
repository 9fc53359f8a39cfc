const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path ids are checked before they reach the database: a malformed one is simply not found. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
