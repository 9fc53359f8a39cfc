import type { Knex } from 'knex';

/**
 * Keeps statements out of error messages. knex puts a failed statement in front of the driver's
 * message (`<sql> - <message>`), with its bound values unless `compileSqlOnError` is false, and
 * such an error reaches the log of an unhandled failure with tenant ids and user input in it.
 * With `compileSqlOnError: false` (set where the knex instance is made) the prefix is exactly the
 * statement's text, which is cut off here, from the message and from the stack's first line,
 * before the error reaches anyone: what is left is the driver's own message and code.
 */
export function withoutStatementText(knex: Knex): Knex {
  knex.on('query-error', (error: unknown, query: { sql?: unknown } | undefined) => {
    if (!(error instanceof Error) || typeof query?.sql !== 'string') return;
    const prefix = `${query.sql} - `;
    if (!error.message.startsWith(prefix)) return;
    const stack = error.stack;
    error.message = error.message.slice(prefix.length);
    if (stack !== undefined) error.stack = stack.replace(prefix, '');
  });
  return knex;
}
