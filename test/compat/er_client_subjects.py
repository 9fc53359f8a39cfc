"""er-client's subject-side calls (ERClient): sensors and observations, subjects and groups, sources and assignments,
tracks and tracking exports (issue 27)."""
import csv
import json
import os
import tempfile
from datetime import datetime

from er_client_harness import ENV, expect, gone, ident, items, now, record, seed, state


def observations(c):
    """Sensors, subjects and observations, subject groups and a camera trap report."""
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
        state['elephant'] = {'subject': subject['id'], 'source': source}
        record('ERClient.get_source_observations', lambda: list(c.get_source_observations(source, start=now(-60))),
               lambda obs: expect(len(obs) == 1 and obs[0]['source'] == source, obs))
    record('ERClient.get_subjectgroups', c.get_subjectgroups, lambda gs: expect(isinstance(gs, list), gs))
    with open(ENV['ER_IMAGE'], 'rb') as image:
        record('ERClient.post_camera_trap_report', lambda: c.post_camera_trap_report({'camera_name': 'er-client cam', 'camera_description': 'gate',
                                                                                      'time': now().isoformat(), 'location': json.dumps({'latitude': -1.4, 'longitude': 36.8})}, image),
               lambda r: expect(r.get('group_id'), r))


def sensor_subject(c, name, manufacturer_id, groups=None):
    """A subject and its source made by the sensor intake: {'subject', 'source'} ids."""
    item = {'manufacturer_id': manufacturer_id, 'source_type': 'tracking-device', 'subject_name': name, 'recorded_at': now(-6),
            'location': {'lat': -1.47, 'lon': 36.87}, 'additional': {'speed': 1}}
    if groups:
        item['subject_groups'] = groups
    c.post_sensor_observation(item)
    subject = next(s for s in c.get_subjects() if s.get('name') == name)
    return {'subject': subject['id'], 'source': next(iter(c.get_subject_observations(subject['id'], start=now(-60))))['source']}


def assigned(answer, subject_id, source_id):
    """`answer` (a list or page of assignments) assigns the source to the subject from some time on."""
    return any(ident(a.get('subject')) == subject_id and ident(a.get('source')) == source_id and (a.get('assigned_range') or {}).get('lower')
               for a in items(answer))


def track_problem(collection, times):
    """None when `collection` is a FeatureCollection whose LineString carries exactly `times`."""
    features = collection.get('features') if isinstance(collection, dict) else None
    if not features:
        return f'no features: {collection}'
    geometry, properties = features[0].get('geometry') or {}, features[0].get('properties') or {}
    stamps = (properties.get('coordinateProperties') or {}).get('times') or []
    if geometry.get('type') != 'LineString' or len(geometry.get('coordinates') or []) != len(stamps):
        return f'not a LineString with a time per point: {features[0]}'
    if sorted(datetime.fromisoformat(t) for t in stamps) != times:
        return f'times {stamps}, observations at {[t.isoformat() for t in times]}'
    return None


def csv_problem(path, counts):
    """None when the CSV at `path` has the client's header and `counts[name]` rows per subject name."""
    with open(path, newline='') as f:
        rows = list(csv.reader(f))
    if not rows or rows[0][:4] != ['Subject', 'Recorded At', 'Lat', 'Lon']:
        return f'header: {rows[:1]}'
    found = {name: sum(1 for row in rows[1:] if row[0] == name) for name in counts}
    return None if found == counts else f'rows per subject {found}, expected {counts}: {rows[:6]}'


def subject_side(c):
    """Sources, assignments, subjects, groups, observations, tracks and tracking exports (issue 27)."""
    elephant = state.get('elephant')
    if not elephant:
        return
    sid, src = elephant['subject'], elephant['source']
    seed('ERClient.post_sensor_observation', lambda: c.post_sensor_observation({
        'manufacturer_id': 'erc-collar-1', 'source_type': 'tracking-device', 'subject_name': 'er-client elephant',
        'recorded_at': now(-4), 'location': {'lat': -1.451, 'lon': 36.851}, 'additional': {'speed': 2}}))
    posted = record('ERClient.post_subject', lambda: c.post_subject({'name': 'er-client posted subject', 'additional': {'rfid': 'erc-1'}}),
                    lambda s: expect(s.get('id') and s.get('name') == 'er-client posted subject' and s.get('subject_subtype') == 'ranger', s))
    source = record('ERClient.post_source', lambda: c.post_source({'manufacturer_id': 'erc-posted-collar', 'source_type': 'tracking-device',
                                                                  'model_name': 'er-client collar', 'additional': {'note': 'from er-client'}}),
                    lambda s: expect(s.get('id') and s.get('manufacturer_id') == 'erc-posted-collar', s))
    wanted = {'erc-collar-1', 'erc-posted-collar'} if source else {'erc-collar-1'}
    record('ERClient.get_sources', lambda: list(c.get_sources(page_size=1)),
           lambda ss: expect(wanted <= {s.get('manufacturer_id') for s in ss}, ss))
    record('ERClient.get_source_by_id', lambda: c.get_source_by_id(src), lambda s: expect(s.get('id') == src and s.get('manufacturer_id') == 'erc-collar-1', s))
    record('ERClient.get_source_by_manufacturer_id', lambda: c.get_source_by_manufacturer_id('erc-collar-1'), lambda s: expect(s.get('id') == src, s))
    record('ERClient.get_source_provider', lambda: c.get_source_provider(ENV['ER_PROVIDER_KEY']),
           lambda p: expect(p and p.get('provider_key') == ENV['ER_PROVIDER_KEY'], p))
    record('ERClient.get_subject_sources', lambda: c.get_subject_sources(sid), lambda ss: expect([ident(s) for s in items(ss)] == [src], ss))
    record('ERClient.get_subjectsources', lambda: c.get_subjectsources(sid), lambda a: expect(assigned(a, sid, src), a))
    record('ERClient.post_observation', lambda: c.post_observation({'source': src, 'recorded_at': now(-3), 'location': {'lat': -1.452, 'lon': 36.852},
                                                                    'additional': {'speed': 4}}),
           lambda o: expect(isinstance(o, dict) and o.get('id') and ident(o.get('source')) == src, o))
    times = sorted(datetime.fromisoformat(o['recorded_at']) for o in c.get_subject_observations(sid, start=now(-60)))
    record('ERClient.get_subject_tracks', lambda: c.get_subject_tracks(sid, start=now(-60), end=now(1)), lambda fc: track_problem(fc, times))
    record('ERClient.get_subject_source_tracks', lambda: c.get_subject_source_tracks(sid, src, start=now(-60)), lambda fc: track_problem(fc, times))
    record('ERClient.get_subject_trackingdata', lambda: c.get_subject_trackingdata(subject_id=sid, start=now(-60), end=now(1)),
           lambda rows: expect(len(items(rows)) == len(times), rows))
    record('ERClient.get_subject_trackingmetadata', c.get_subject_trackingmetadata,
           lambda meta: expect(any(sid in json.dumps(m) for m in items(meta)), meta))

    # A group made by the sensor intake: members added and removed, observations exported by group.
    grouped = seed('ERClient.post_sensor_observation', lambda: sensor_subject(c, 'er-client grouped', 'erc-collar-g', ['er-client group']))
    group = next((g['id'] for g in c.get_subjectgroups() if g.get('name') == 'er-client group'), None)
    if grouped and group:
        state['group'] = group
        members = lambda: {s['id'] for g in c.get_subjectgroups() if g['id'] == group for s in g.get('subjects', [])}  # noqa: E731
        added = record('ERClient.add_subjects_to_subjectgroup', lambda: c.add_subjects_to_subjectgroup(group, [{'id': sid}]),
                       lambda _: expect(sid in members(), 'the subject is not a member'))
        path = os.path.join(tempfile.mkdtemp(), 'observations.csv')
        counts = {'er-client grouped': 1, **({'er-client elephant': len(times)} if added is not None else {})}
        record('ERClient.export_observations_to_csv', lambda: c.export_observations_to_csv(now(-60), now(1), [group], True, path),
               lambda _: csv_problem(path, counts))
        record('ERClient.remove_subjects_from_subjectgroup', lambda: c.remove_subjects_from_subjectgroup(group, [{'id': sid}]),
               lambda ok: expect(ok is True and sid not in members(), 'still a member'))

    doomed = seed('ERClient.post_sensor_observation', lambda: sensor_subject(c, 'er-client doomed', 'erc-collar-d'))
    state['async_doomed'] = seed('ERClient.post_sensor_observation', lambda: sensor_subject(c, 'er-client async doomed', 'erc-collar-ad'))
    if doomed:
        subject_id = posted['id'] if posted else doomed['subject']
        record('ERClient.delete_subject', lambda: c.delete_subject(subject_id), lambda _: expect(gone(lambda: c.get_subject(subject_id)), 'still there'))
        source_id = source['id'] if source else doomed['source']
        record('ERClient.delete_source', lambda: c.delete_source(source_id), lambda _: expect(gone(lambda: c._get(f'source/{source_id}')), 'still there'))
