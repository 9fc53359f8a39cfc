"""er-client's catalog and event calls (ERClient): event types v1 and v2, events with notes and files, patrols and segments."""
import json
import os
import tempfile

from erclient.client import ERClient

from er_client_harness import ENV, expect, kwargs, now, record, state


def event_types(c):
    """Event categories and types, v1 and v2."""
    record('ERClient.get_event_categories', c.get_event_categories, lambda cats: expect(isinstance(cats, list), cats))
    v1_doc = json.dumps({'schema': {'$schema': 'http://json-schema.org/draft-04/schema#', 'type': 'object', 'required': ['species'],
                                    'properties': {'species': {'type': 'string', 'title': 'Species', 'enum': ['lion', 'eland']},
                                                   'count': {'type': 'number', 'title': 'Count', 'minimum': 1}}},
                         'definition': ['species', 'count']})
    v1 = record('ERClient.post_event_type(v1)', lambda: c.post_event_type({'value': 'erc_v1', 'display': 'er-client v1', 'schema': v1_doc}),
                lambda t: expect(t.get('value') == 'erc_v1', t))
    if v1:
        record('ERClient.patch_event_type(v1)', lambda: c.patch_event_type({'id': v1['id'], 'display': 'er-client v1 (renamed)'}),
               lambda t: expect(t.get('display') == 'er-client v1 (renamed)', t))
    v2_schema = {'json': {'$schema': 'https://json-schema.org/draft/2020-12/schema', 'type': 'object', 'additionalProperties': False,
                          'properties': {'count': {'type': 'integer', 'title': 'Count', 'minimum': 1}}},
                 'ui': {'fields': {'count': {'type': 'NUMBER', 'inputType': 'NUMBER'}}, 'sections': {}, 'order': [], 'headers': {}}}
    record('ERClient.post_event_type(v2)', lambda: c.post_event_type({'value': 'erc_v2', 'display': 'er-client v2', 'schema': v2_schema}, version='v2.0'),
           lambda r: expect(isinstance(r, dict), r))
    record('ERClient.patch_event_type(v2)', lambda: c.patch_event_type({'value': 'erc_v2', 'display': 'er-client v2 (renamed)'}, version='v2.0'),
           lambda r: expect(r is not None, r))
    record('ERClient.get_event_types(v1)', lambda: c.get_event_types(include_schema=True),
           lambda ts: expect(any(t.get('value') == 'erc_v1' for t in ts), ts))
    record('ERClient.get_event_types(v2)', lambda: c.get_event_types(version='v2.0'),
           lambda ts: expect(any(t.get('value') == 'erc_v2' for t in (ts.get('results', ts) if isinstance(ts, dict) else ts)), ts))
    record('ERClient.get_event_type(v1)', lambda: c.get_event_type('erc_v1'), lambda doc: expect('schema' in doc, doc))
    record('ERClient.get_event_type(v2)', lambda: c.get_event_type('erc_v2', version='v2.0', include_schema=True),
           lambda t: expect(t.get('value') == 'erc_v2' and 'schema' in t, t))
    record('ERClient.get_event_schema', lambda: c.get_event_schema('erc_v1'),
           lambda doc: expect(doc.get('schema', {}).get('properties', {}).get('species'), doc))


def events(c):
    """Events with notes and files; returns the report made (later areas build on it, through `state` too)."""
    event = record('ERClient.post_report', lambda: c.post_report({'event_type': 'erc_v2', 'title': 'er-client report', 'time': now().isoformat(),
                                                                  'location': {'latitude': -1.5, 'longitude': 36.9}, 'priority': 200, 'event_details': {'count': 2}}),
                   lambda e: expect(e.get('serial_number') and e.get('event_type') == 'erc_v2', e))
    v1_event = record('ERClient.post_event', lambda: c.post_event({'event_type': 'erc_v1', 'event_details': {'species': 'lion', 'count': 3}}),
                      lambda e: expect(e.get('id') and e.get('event_details', {}).get('species') == 'lion', e))
    if event:
        eid = event['id']
        record('ERClient.patch_event', lambda: c.patch_event(eid, {'state': 'active'}), lambda e: expect(e.get('state') == 'active', e))
        notes = record('ERClient.post_event_note', lambda: c.post_event_note(eid, ['first note', 'second note']),
                       lambda ns: expect(len(ns) == 2 and ns[0].get('text') == 'first note', ns))
        path = os.path.join(tempfile.mkdtemp(), 'er-client-note.txt')
        with open(path, 'w') as f:
            f.write('a text attachment from er-client\n')
        # ERClient._post_form reads `["data"]`: a client in the earthranger profile uploads.
        enveloped = ERClient(**kwargs(ENV['ER_CLIENT_ID_EARTHRANGER']))
        attached = record('ERClient.post_event_file', lambda: enveloped.post_event_file(eid, path, comment='from er-client'),
                          lambda fi: expect(fi.get('comment') == 'from er-client' and fi.get('url'), fi))
        full = record('ERClient.get_event', lambda: c.get_event(event_id=eid, include_notes=True, include_files=True, include_updates=True),
                      lambda e: expect(len(e.get('notes', [])) == 2 and len(e.get('files', [])) == 1 and e.get('updates'), e))
        if attached:
            record('ERClient.get_file', lambda: c.get_file(attached['url']),
                   lambda r: expect(r.content == b'a text attachment from er-client\n', r.content[:100]))
            record('ERClient.delete_event_file', lambda: c.delete_event_file(eid, attached['id']))
        if notes:
            record('ERClient.delete_event_note', lambda: c.delete_event_note(eid, notes[1]['id']))
        record('ERClient.get_events', lambda: list(c.get_events(state=['active'], page_size=1,
                                                                 filter=json.dumps({'date_range': {'lower': now(-60).isoformat()}, 'text': 'er-client'}))),
               lambda es: expect([e['id'] for e in es] == [eid], es))
        record('ERClient.get_objects', lambda: list(c.get_objects(object='activity/events', page_size=1)),
               lambda es: expect(len(es) >= 2, len(es)))
        record('ERClient.get_objects_multithreaded', lambda: list(c.get_objects_multithreaded(object='activity/events', page_size=1, threads=2)),
               lambda es: expect(len(es) >= 2, len(es)))
        state['event'] = event
    if v1_event:
        record('ERClient.delete_event', lambda: c.delete_event(v1_event['id']))
    return event


def patrols(c, event):
    """A patrol and its segment; `event` (when made) is added to the segment."""
    start = now(-30)
    patrol = record('ERClient.post_patrol', lambda: c.post_patrol({'title': 'er-client patrol', 'priority': 0, 'state': 'open', 'patrol_segments': [
        {'patrol_type': ENV['ER_PATROL_TYPE'], 'time_range': {'start_time': start.isoformat()}, 'start_location': {'latitude': -1.4, 'longitude': 36.8}}]}),
        lambda p: expect(p.get('serial_number') and len(p.get('patrol_segments', [])) == 1, p))
    if patrol:
        record('ERClient.get_patrols', lambda: list(c.get_patrols(filter=json.dumps({'date_range': {'lower': now(-120).isoformat()}}))),
               lambda ps: expect(any(p['id'] == patrol['id'] for p in ps), ps))
        if event:
            segment = patrol['patrol_segments'][0]
            record('ERClient.add_events_to_patrol_segment', lambda: c.add_events_to_patrol_segment([event], segment))
            state['segment_events'] = c.get_event(event_id=event['id']).get('patrol_segments')
