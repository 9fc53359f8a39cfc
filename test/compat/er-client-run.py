"""Drives the public Python er-client, unchanged, against a running fieldops server.

Run by test/compat/er-client.test.ts, which starts the server, seeds it and reads the JSON this
prints on its last line: {"results": [{"method", "ok", "detail", "pending"?, "seed"?}],
"methods": [...every public method of ERClient and AsyncERClient...], "not_built": [...], "state"}.

Environment: ER_BASE, ER_USERNAME, ER_PASSWORD, ER_CLIENT_ID (the server's default profile),
ER_CLIENT_ID_EARTHRANGER (the earthranger profile), ER_PROVIDER_KEY, ER_IMAGE (a JPEG),
ER_PATROL_TYPE (an existing patrol type value), ER_FEATURE_GROUP (a feature group id imported by
`fieldops admin features import`, or empty), ER_PROBE=1 (call the NOT_BUILT methods too).
The calls are grouped by area in the er_client_*.py modules beside this file (Python finds them
because it puts this script's folder first on its path); er_client_harness.py records them.
Methods out of scope are not called: their list, with the reasons, is docs/er-client.md (the
test checks that every other method succeeded).
"""
import inspect
import json

from erclient.client import AsyncERClient, ERClient

from er_client_async import async_client
from er_client_events import event_types, events, patrols
from er_client_harness import ENV, NOT_BUILT, expect, kwargs, record, results, state, watched
from er_client_incidents import incidents_categories_patrols, messages
from er_client_subjects import observations, subject_side


def sync_client():
    """ERClient's calls, area by area, in this order: each area builds on what the earlier ones made (`state`)."""
    c = watched(ERClient(**kwargs()))
    record('ERClient.login', c.login, lambda ok: expect(ok is True and c.auth.get('refresh_token'), 'no token'))
    first = c.auth and c.auth.get('access_token')
    record('ERClient.refresh_token', c.refresh_token, lambda ok: expect(ok is True and c.auth['access_token'] != first, 'token not renewed'))
    record('ERClient.auth_headers', c.auth_headers, lambda h: expect(h['Authorization'].split(' ')[1] == c.auth['access_token'], h))
    record('ERClient.get_me', c.get_me, lambda me: expect(me.get('username') == ENV['ER_USERNAME'], me))
    record('ERClient.get_users', c.get_users, lambda users: expect(any(u.get('username') == ENV['ER_USERNAME'] for u in users), users))
    record('ERClient.pulse', c.pulse, lambda s: expect(isinstance(s, dict), s))
    event_types(c)
    event = events(c)
    patrols(c, event)
    observations(c)
    subject_side(c)
    incidents_categories_patrols(c)
    messages(c)
    return c


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
    print(json.dumps({'results': results, 'methods': public_methods(), 'not_built': sorted(NOT_BUILT),
                      'state': {'segment_events': state.get('segment_events')}}))
