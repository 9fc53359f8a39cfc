"""Drives the public Python er-client, unchanged, against a running fieldops server.

Run by test/compat/er-client.test.ts, which starts the server, seeds it and reads the JSON this
prints on its last line: {"results": [{"method", "ok", "detail"}], "out_of_scope": {...},
"methods": [...every public method of ERClient and AsyncERClient...]}.

Environment: ER_BASE, ER_USERNAME, ER_PASSWORD, ER_CLIENT_ID, ER_PROVIDER_KEY, ER_IMAGE (a JPEG),
ER_PATROL_TYPE (an existing patrol type value). Methods out of scope are not called: their list,
with the reasons, is docs/er-client.md (the test checks that every other method succeeded).
"""
import asyncio
import inspect
import json
import os
import tempfile
import traceback
import types
import uuid
from datetime import datetime, timedelta, timezone

import erclient.client as erc
from erclient.client import AsyncERClient, ERClient

# er-client retries a failed GET five times, 5 s apart: a failing call fails at once here instead
# (the module's own `time` is replaced for this process; er-client's code is not changed).
erc.time = types.SimpleNamespace(sleep=lambda _seconds: None)

ENV = os.environ
results = []
state = {}


def record(method, fn, check=None):
    """Calls `fn`; the method succeeded when it raised nothing and `check` (if any) holds."""
    try:
        value = fn()
        if inspect.isawaitable(value):
            value = asyncio.get_event_loop().run_until_complete(value)
        if check is not None:
            problem = check(value)
            if problem:
                raise AssertionError(problem)
        results.append({'method': method, 'ok': True, 'detail': ''})
        return value
    except Exception as error:  # noqa: BLE001 - every failure is reported, none stops the run
        detail = f'{type(error).__name__}: {error}'[:600]
        results.append({'method': method, 'ok': False, 'detail': detail, 'trace': traceback.format_exc()[-1500:]})
        return None


def expect(condition, message):
    return None if condition else message


def now(minutes=0):
    return datetime.now(tz=timezone.utc) + timedelta(minutes=minutes)


def kwargs():
    return dict(service_root=ENV['ER_BASE'] + '/api/v1.0', username=ENV['ER_USERNAME'], password=ENV['ER_PASSWORD'],
                client_id=ENV['ER_CLIENT_ID'], token_url=ENV['ER_BASE'] + '/oauth2/token', provider_key=ENV['ER_PROVIDER_KEY'])


def sync_client():
    c = ERClient(**kwargs())
    record('ERClient.login', c.login, lambda ok: expect(ok is True and c.auth.get('refresh_token'), 'no token'))
    first = c.auth and c.auth.get('access_token')
    record('ERClient.refresh_token', c.refresh_token, lambda ok: expect(ok is True and c.auth['access_token'] != first, 'token not renewed'))
    record('ERClient.auth_headers', c.auth_headers, lambda h: expect(h['Authorization'].split(' ')[1] == c.auth['access_token'], h))
    record('ERClient.get_me', c.get_me, lambda me: expect(me.get('username') == ENV['ER_USERNAME'], me))
    record('ERClient.get_users', c.get_users, lambda users: expect(any(u.get('username') == ENV['ER_USERNAME'] for u in users), users))
    record('ERClient.pulse', c.pulse, lambda s: expect(isinstance(s, dict), s))

    # Event categories and types, v1 and v2.
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

    # Events with notes and files.
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
        attached = record('ERClient.post_event_file', lambda: c.post_event_file(eid, path, comment='from er-client'),
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

    # Patrols and segments.
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

    # Sensors, subjects and observations.
    recorded = now(-5)
    record('ERClient.post_sensor_observation', lambda: c.post_sensor_observation({
        'manufacturer_id': 'erc-collar-1', 'source_type': 'tracking-device', 'subject_name': 'er-client elephant',
        'recorded_at': recorded, 'location': {'lat': -1.45, 'lon': 36.85}, 'additional': {'speed': 3}}),
        lambda r: expect(r is not None, r))
    record('ERClient.post_radio_observation', lambda: c.post_radio_observation({
        'message_key': 'observation', 'manufacturer_id': 'erc-radio-1', 'source_type': 'gps-radio', 'subject_name': 'er-client ranger',
        'recorded_at': recorded, 'location': {'lat': -1.46, 'lon': 36.86}, 'additional': {'radio_state': 'online'}}),
        lambda r: expect(r is not None, r))
    record('ERClient.post_radio_heartbeat', lambda: c.post_radio_heartbeat({'message_key': 'heartbeat', 'heartbeat': {'title': 'er-client agent', 'datetime': now().isoformat()},
                                                                           'datasource': {'name': 'er-client'}}))
    subjects = record('ERClient.get_subjects', c.get_subjects, lambda ss: expect(any(s.get('name') == 'er-client elephant' for s in ss), ss))
    if subjects:
        subject = next(s for s in subjects if s.get('name') == 'er-client elephant')
        record('ERClient.get_subject', lambda: c.get_subject(subject['id']), lambda s: expect(s.get('id') == subject['id'], s))
        record('ERClient.get_subject_observations', lambda: list(c.get_subject_observations(subject['id'], start=now(-60))),
               lambda obs: expect(len(obs) == 1, obs))
        record('ERClient.get_observations', lambda: list(c.get_observations(start=now(-60), end=now(1))), lambda obs: expect(len(obs) >= 2, obs))
        observed = c.get_subject_observations(subject['id'], start=now(-60))
        source = next(iter(observed), {}).get('source')
        record('ERClient.get_source_observations', lambda: list(c.get_source_observations(source, start=now(-60))),
               lambda obs: expect(len(obs) == 1 and obs[0]['source'] == source, obs))
    record('ERClient.get_subjectgroups', c.get_subjectgroups, lambda gs: expect(isinstance(gs, list), gs))
    with open(ENV['ER_IMAGE'], 'rb') as image:
        record('ERClient.post_camera_trap_report', lambda: c.post_camera_trap_report({'camera_name': 'er-client cam', 'camera_description': 'gate',
                                                                                      'time': now().isoformat(), 'location': json.dumps({'latitude': -1.4, 'longitude': 36.8})}, image),
               lambda r: expect(r.get('group_id'), r))
    record('ERClient.get_messages', lambda: list(c.get_messages()), lambda ms: expect(ms == [], ms))
    return c


def async_client():
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    c = AsyncERClient(**kwargs())
    run = loop.run_until_complete
    record('AsyncERClient.login', c.login, lambda ok: expect(ok is True, ok))
    record('AsyncERClient.refresh_token', c.refresh_token, lambda ok: expect(ok is True, ok))
    record('AsyncERClient.auth_headers', c.auth_headers, lambda h: expect(h['Authorization'].startswith('Bearer '), h))
    record('AsyncERClient.get_me', c.get_me, lambda me: expect(me.get('username') == ENV['ER_USERNAME'], me))
    record('AsyncERClient.get_event_categories', c.get_event_categories, lambda cats: expect(isinstance(cats, list), cats))
    record('AsyncERClient.get_event_types', lambda: c.get_event_types(), lambda ts: expect(any(t.get('value') == 'erc_v1' for t in ts), ts))
    record('AsyncERClient.get_event_type', lambda: c.get_event_type('erc_v2', version='v2.0', include_schema=True), lambda t: expect(t.get('value') == 'erc_v2', t))
    record('AsyncERClient.post_event_type', lambda: c.post_event_type({'value': 'erc_async_v2', 'display': 'async v2'}, version='v2.0'))
    record('AsyncERClient.patch_event_type', lambda: c.patch_event_type({'value': 'erc_async_v2', 'display': 'async v2 (renamed)'}, version='v2.0'))
    event = record('AsyncERClient.post_report', lambda: c.post_report({'event_type': 'erc_v2', 'title': 'async report', 'event_details': {}}),
                   lambda e: expect(e.get('id'), e))
    other = record('AsyncERClient.post_event', lambda: c.post_event({'event_type': 'erc_v2', 'title': 'async event', 'event_details': {}}),
                   lambda e: expect(e.get('id'), e))
    if event:
        eid = event['id']
        record('AsyncERClient.patch_report', lambda: c.patch_report(eid, {'priority': 300}), lambda e: expect(e.get('priority') == 300, e))
        record('AsyncERClient.patch_event', lambda: c.patch_event(eid, {'state': 'resolved'}), lambda e: expect(e.get('state') == 'resolved', e))
        notes = record('AsyncERClient.post_event_note', lambda: c.post_event_note(eid, 'async note'), lambda ns: expect(ns[0].get('text') == 'async note', ns))
        path = os.path.join(tempfile.mkdtemp(), 'async.txt')
        with open(path, 'w') as f:
            f.write('async attachment\n')
        attached = record('AsyncERClient.post_event_file', lambda: c.post_event_file(eid, path, comment='async'), lambda fi: expect(fi.get('id'), fi))
        with open(path, 'rb') as f:
            record('AsyncERClient.post_report_attachment', lambda: c.post_report_attachment(eid, f), lambda fi: expect(fi.get('id'), fi))
        record('AsyncERClient.get_event', lambda: c.get_event(event_id=eid), lambda e: expect(len(e.get('files', [])) == 2 and len(e.get('notes', [])) == 1, e))
        if attached:
            record('AsyncERClient.get_file', lambda: c.get_file(attached['url']), lambda r: expect(r.content == b'async attachment\n', r.content[:80]))
            record('AsyncERClient.delete_event_file', lambda: c.delete_event_file(eid, attached['id']))
        if notes:
            record('AsyncERClient.delete_event_note', lambda: c.delete_event_note(eid, notes[0]['id']))

        async def collect(gen):
            return [item async for item in gen]
        record('AsyncERClient.get_events', lambda: collect(c.get_events(page_size=1, filter=json.dumps({'text': 'async'}))),
               lambda es: expect(sorted(e['id'] for e in es) == sorted(x['id'] for x in (event, other) if x), es))
        record('AsyncERClient.get_observations', lambda: collect(c.get_observations(start=now(-60).isoformat(), page_size=1)),
               lambda obs: expect(len(obs) >= 2, obs))
    if other:
        record('AsyncERClient.delete_event', lambda: c.delete_event(other['id']))
    record('AsyncERClient.post_sensor_observation', lambda: c.post_sensor_observation({
        'manufacturer_id': 'erc-collar-2', 'source_type': 'tracking-device', 'subject_name': 'async elephant',
        'recorded_at': now(-4), 'location': {'lat': -1.45, 'lon': 36.85}, 'additional': {}}), lambda r: expect(r is not None, r))
    record('AsyncERClient.get_subjectgroups', c.get_subjectgroups, lambda gs: expect(isinstance(gs, list), gs))
    with open(ENV['ER_IMAGE'], 'rb') as image:
        data = image.read()
    record('AsyncERClient.post_camera_trap_report', lambda: c.post_camera_trap_report({'camera_name': 'async cam', 'time': now().isoformat()},
                                                                                        ('async.jpg', data + b'\x00', 'image/jpeg')),
           lambda r: expect(r.get('group_id'), r))
    record('AsyncERClient.close', c.close)
    loop.close()


def public_methods():
    names = []
    for cls in (ERClient, AsyncERClient):
        for name, _ in inspect.getmembers(cls, predicate=inspect.isfunction):
            if not name.startswith('_'):
                names.append(f'{cls.__name__}.{name}')
    return names


if __name__ == '__main__':
    sync_client()
    async_client()
    print(json.dumps({'results': results, 'methods': public_methods(), 'state': {'segment_events': state.get('segment_events')}}))
