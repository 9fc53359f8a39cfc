"""er-client's incident, export, category and message calls (ERClient), on what the earlier areas made (`state`)."""
import json

from er_client_harness import ENV, expect, gone, now, record, seed, state


def contained(c, incident_id, event_id):
    """The incident's detail lists the event in `contains`, and the event's lists the incident in `is_contained_in`."""
    incident = c.get_event(event_id=incident_id, include_related_events=True)
    event = c.get_event(event_id=event_id, include_related_events=True)
    return (any((r.get('related_event') or {}).get('id') == event_id for r in incident.get('contains') or []),
            any((r.get('related_event') or {}).get('id') == incident_id for r in event.get('is_contained_in') or []))


def incidents_categories_patrols(c):
    """Incidents (an is_collection event type), the events export, v1 categories and a patrol's deletion."""
    seed('ERClient.post_event_type(v2)', lambda: c.post_event_type({'value': 'erc_incident', 'display': 'er-client incident', 'is_collection': True}, version='v2.0'))
    incident = seed('ERClient.post_report', lambda: c.post_report({'event_type': 'erc_incident', 'title': 'er-client incident'}),
                    lambda e: expect(e.get('is_collection') is True, e))
    event = state.get('event')
    if incident and event:
        state['incident'] = incident['id']
        record('ERClient.add_event_to_incident', lambda: c.add_event_to_incident(event['id'], incident['id']),
               lambda _: expect(contained(c, incident['id'], event['id']) == (True, True), contained(c, incident['id'], event['id'])))
        record('ERClient.remove_event_from_incident', lambda: c.remove_event_from_incident(event['id'], incident['id']),
               lambda _: expect(contained(c, incident['id'], event['id']) == (False, False), contained(c, incident['id'], event['id'])))
    record('ERClient.get_events_export', lambda: c.get_events_export(filter=json.dumps({'text': 'er-client report'})),
           lambda r: expect(r.status_code == 200 and 'text/csv' in r.headers.get('Content-Type', '') and 'er-client report' in r.text
                            and 'er-client incident' not in r.text, (r.status_code, r.headers.get('Content-Type'), r.text[:400])))
    category = record('ERClient.post_event_category', lambda: c.post_event_category({'value': 'erc_category', 'display': 'er-client category'}),
                      lambda k: expect(k.get('id') and k.get('value') == 'erc_category', k))
    if category:
        record('ERClient.patch_event_category', lambda: c.patch_event_category({'id': category['id'], 'display': 'er-client category (renamed)'}),
               lambda k: expect(k.get('display') == 'er-client category (renamed)'
                                and any(x.get('display') == 'er-client category (renamed)' for x in c.get_event_categories()), k))
    patrol = seed('ERClient.delete_patrol', lambda: c.post_patrol({'title': 'er-client doomed patrol', 'state': 'open', 'patrol_segments': [
        {'patrol_type': ENV['ER_PATROL_TYPE'], 'time_range': {'start_time': now(-10).isoformat()}}]}), lambda p: expect(p.get('id'), p))
    if patrol:
        record('ERClient.delete_patrol', lambda: c.delete_patrol(patrol['id']),
               lambda _: expect(gone(lambda: c._get(f"activity/patrols/{patrol['id']}")), 'the patrol is still there'))


def messages(c):
    """A message to a subject (posted as AsyncERClient.post_message does), listed, then deleted."""
    elephant = state.get('elephant') or {}
    # As the web app sends to a subject's messaging URL (`messages?subject_id=...`).
    sent = seed('AsyncERClient.post_message', lambda: c._post('messages', {'message_type': 'outbox', 'text': 'er-client hello'}, params={'subject_id': elephant.get('subject')}),
                lambda m: expect(m.get('id') and m.get('message_type') == 'outbox', m))
    record('ERClient.get_messages', lambda: list(c.get_messages()),
           lambda ms: expect([m.get('text') for m in ms] == (['er-client hello'] if sent else []), ms))
    if sent:
        record('ERClient.delete_message', lambda: c.delete_message(sent['id']),
               lambda _: expect(all(m.get('id') != sent['id'] for m in c.get_messages()), 'the message is still listed'))
