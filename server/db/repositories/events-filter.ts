import type { Knex } from 'knex';
import type { EventListFilter } from '../../domain/events/model.js';

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The events list's filter as plain comparisons on `events` columns (CONTRACT §11). `text`
 * matches the title, the type's value, the serial number and the text of the event's notes,
 * case-insensitively on both dialects (lower() on each side).
 */
export function applyEventFilter(query: Knex.QueryBuilder, filter: EventListFilter): void {
  if (filter.states) query.whereIn('events.state', filter.states);
  if (filter.eventTypes) query.whereIn('events.event_type', filter.eventTypes);
  if (filter.priorities) query.whereIn('events.priority', filter.priorities);
  if (filter.reportedBy) query.whereIn('events.created_by_user_id', filter.reportedBy);
  if (filter.updatedSince !== null) query.where('events.updated_at', '>=', filter.updatedSince);
  if (filter.dateRange?.lower != null) query.where('events.time', '>=', filter.dateRange.lower);
  if (filter.dateRange?.upper != null) query.where('events.time', '<=', filter.dateRange.upper);
  if (filter.located) query.whereNotNull('events.latitude').whereNotNull('events.longitude');
  if (filter.bbox) {
    const { west, south, east, north } = filter.bbox;
    // Longitude first: the index events(tenant_id, longitude, latitude) serves the range.
    if (west <= east) query.whereBetween('events.longitude', [west, east]);
    else query.where((q) => q.where('events.longitude', '>=', west).orWhere('events.longitude', '<=', east));
    query.whereBetween('events.latitude', [south, north]);
  }
  if (filter.text) {
    const pattern = likePattern(filter.text);
    const serial = /^\d{1,9}$/.test(filter.text) ? Number(filter.text) : -1;
    query.where((q) =>
      q.whereRaw("lower(events.title) LIKE ? ESCAPE '\\'", [pattern])
        .orWhereRaw("lower(events.event_type) LIKE ? ESCAPE '\\'", [pattern])
        .orWhere('events.serial_number', serial)
        .orWhereExists((sub) =>
          sub.select(sub.client.raw('1')).from('event_notes').whereRaw('event_notes.tenant_id = events.tenant_id AND event_notes.event_id = events.id').andWhereRaw("lower(event_notes.text) LIKE ? ESCAPE '\\'", [pattern]),
        ),
    );
  }
}
