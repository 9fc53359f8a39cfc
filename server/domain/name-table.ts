/**
 * An empty table keyed by names a client chose (form fields, JSON property names): without a
 * prototype, so that `__proto__`, `constructor` or `toString` is a key like any other. `{}`
 * hands back Object.prototype's members for them, and `(table[name] ??= []).push(...)` threw:
 * a 500 for a form field or a body property of that name.
 */
export function nameTable<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
