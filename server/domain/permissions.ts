/** Django-style permission codenames (CONTRACT §2). A superuser holds all of them. */
export const PERMISSIONS = [
  'view_patroltype', 'add_patroltype', 'change_patroltype', 'delete_patroltype',
  'view_patrol', 'add_patrol', 'change_patrol', 'delete_patrol',
  'view_eventtype', 'add_eventtype', 'change_eventtype', 'delete_eventtype',
  'view_choice', 'add_choice', 'change_choice',
  'view_user', 'add_user', 'change_user',
  'add_observation', 'view_observation', 'view_subject',
  'view_event', 'add_event', 'change_event',
  // Deleting an event (the events family, CONTRACT §11): not in CONTRACT §2's list; as delete_patrol.
  'delete_event',
  // Operations: read /metrics (not in CONTRACT §2's list; added for the metrics endpoint).
  'view_metrics',
  // The subject side (issue 27): subjects, sources and their assignments, messages, feature
  // sets, and the data exports (the original's `export` permission sets).
  'add_subject', 'change_subject', 'delete_subject',
  'view_source', 'add_source', 'change_source', 'delete_source',
  'view_message', 'add_message', 'change_message', 'delete_message',
  'view_feature', 'add_feature',
  'export_event', 'export_observation',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const KNOWN = new Set<string>(PERMISSIONS);

export function isPermission(value: string): value is Permission {
  return KNOWN.has(value);
}
