import { Readable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { EventExportService } from '../../domain/events/export.js';
import { listQuery } from './events.js';
import { requestContext, type AppContext } from '../state.js';

/**
 * `activity/events/export` (issue 27 §4): the filtered events as CSV, streamed. Rows are pulled
 * from the service's batches as the client reads (pipe backpressure: a slow reader holds the
 * next query, never a buffer of the whole result), and written by csv-stringify (quoting,
 * separators and line ends are the library's). A client that goes away stops the reads.
 */
export function eventExportHandlers(deps: { exports: EventExportService }) {
  return {
    async export(ctx: AppContext) {
      const file = await deps.exports.open(requestContext(ctx), listQuery(ctx));
      // escape_formulas: a cell a spreadsheet would run as a formula (= + - @ ...) gets a leading quote (CSV injection).
      const csv = stringify({ header: true, columns: file.header, escape_formulas: true, cast: { number: (value) => String(value) } });
      const log = ctx.state.log;
      pipeline(Readable.from(file.rows()), csv, (error) => {
        if (error && error.code !== 'ERR_STREAM_PREMATURE_CLOSE') log.warn({ err: error }, 'events export stopped');
      });
      ctx.status = 200;
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="${file.filename}"`);
      // The web app names the saved file by this header (the original's).
      ctx.set('X-DAS-Download-Filename', file.filename);
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = csv;
    },
  };
}
