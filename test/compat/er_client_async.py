"""AsyncERClient's calls, on what the ERClient areas made (`state`)."""
import asyncio
import json
import os
import tempfile

from erclient.client import AsyncERClient

from er_client_harness import ENV, expect, gone, ident, items, kwargs, now, record, state
from er_client_subjects import assigned


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
    async_subject_side(c, event)
    record('AsyncERClient.close', c.close)
    loop.close()


def async_subject_side(c, event):
    """The issue 27 calls of AsyncERClient, on what the ERClient part made (state)."""
    elephant, doomed, group, incident = state.get('elephant'), state.get('async_doomed'), state.get('group'), state.get('incident')
    if elephant:
        sid, src = elephant['subject'], elephant['source']
        record('AsyncERClient.post_observation', lambda: c.post_observation([
            {'source': src, 'recorded_at': now(-2), 'location': {'lat': -1.453, 'lon': 36.853}, 'additional': {}},
            {'source': src, 'recorded_at': now(-1), 'location': {'lat': -1.454, 'lon': 36.854}, 'additional': {}}]),
            lambda os: expect(isinstance(os, list) and len(os) == 2 and all(ident(o.get('source')) == src for o in os), os))
        record('AsyncERClient.get_source_by_manufacturer_id', lambda: c.get_source_by_manufacturer_id('erc-collar-1'), lambda s: expect(s.get('id') == src, s))
        record('AsyncERClient.get_source_subjects', lambda: c.get_source_subjects(src), lambda ss: expect([ident(s) for s in items(ss)] == [sid], ss))
        record('AsyncERClient.get_subject_sources', lambda: c.get_subject_sources(sid), lambda ss: expect([ident(s) for s in items(ss)] == [src], ss))
        record('AsyncERClient.get_source_assignments', lambda: c.get_source_assignments(subject_ids=[sid]),
               lambda a: expect(assigned(a, sid, src) and all(ident(x.get('subject')) == sid for x in items(a)), a))
        # As an integration relays a device's message: the device named in the query.
        record('AsyncERClient.post_message', lambda: c.post_message({'message_type': 'inbox', 'text': 'async hello', 'message_time': now(-1).isoformat(),
                                                                     'device_location': {'latitude': -1.45, 'longitude': 36.85}},
                                                                    params={'manufacturer_id': 'erc-collar-1', 'provider_key': ENV['ER_PROVIDER_KEY']}),
               lambda m: expect(m.get('id') and m.get('text') == 'async hello' and m.get('message_type') == 'inbox' and sid in json.dumps(m), m))
        if group:
            def members():
                groups = asyncio.get_event_loop().run_until_complete(c.get_subjectgroups())
                return {s['id'] for g in groups if g['id'] == group for s in g.get('subjects', [])}
            record('AsyncERClient.add_subjects_to_subjectgroup', lambda: c.add_subjects_to_subjectgroup(group, [{'id': sid}]),
                   lambda _: expect(sid in members(), 'the subject is not a member'))
            record('AsyncERClient.remove_subjects_from_subjectgroup', lambda: c.remove_subjects_from_subjectgroup(group, [{'id': sid}]),
                   lambda _: expect(sid not in members(), 'still a member'))
    if doomed:
        record('AsyncERClient.patch_subject', lambda: c.patch_subject(doomed['subject'], {'name': 'er-client renamed', 'is_active': False}),
               lambda s: expect(s.get('id') == doomed['subject'] and s.get('name') == 'er-client renamed' and s.get('is_active') is False, s))
        record('AsyncERClient.delete_subject', lambda: c.delete_subject(doomed['subject']),
               lambda _: expect(gone(lambda: c._get(f"subject/{doomed['subject']}")), 'still there'))
        record('AsyncERClient.delete_source', lambda: c.delete_source(doomed['source']),
               lambda _: expect(gone(lambda: c._get(f"source/{doomed['source']}")), 'still there'))
    if incident and event:
        async def related():
            detail = await c.get_event(event_id=incident, include_related_events=True)
            return [(r.get('related_event') or {}).get('id') for r in detail.get('contains') or []]
        run = asyncio.get_event_loop().run_until_complete
        record('AsyncERClient.add_event_to_incident', lambda: c.add_event_to_incident(event['id'], incident),
               lambda _: expect(run(related()) == [event['id']], run(related())))
        record('AsyncERClient.remove_event_from_incident', lambda: c.remove_event_from_incident(event['id'], incident),
               lambda _: expect(run(related()) == [], run(related())))
    category = record('AsyncERClient.post_event_category', lambda: c.post_event_category({'value': 'erc_async_category', 'display': 'async category'}),
                      lambda k: expect(k.get('id') and k.get('value') == 'erc_async_category', k))
    if category:
        record('AsyncERClient.patch_event_category', lambda: c.patch_event_category({'id': category['id'], 'display': 'async category (renamed)'}),
               lambda k: expect(k.get('display') == 'async category (renamed)', k))
    record('AsyncERClient.get_feature_group', lambda: c.get_feature_group(ENV.get('ER_FEATURE_GROUP', '')),
           lambda g: expect(ENV.get('ER_FEATURE_GROUP') and g.get('id') == ENV['ER_FEATURE_GROUP']
                            and sorted(f['properties'].get('name') for f in g.get('features', [])) == ['er-client fence', 'er-client gate'], g))
