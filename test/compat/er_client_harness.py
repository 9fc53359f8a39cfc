"""The harness of er-client-run.py: how a call is recorded as a check, the state the areas share, and small helpers.

Every area module records its calls into `results` and hands data on to later areas through `state`
(both mutated here, never rebound, so every importer sees the same objects).
"""
import asyncio
import inspect
import os
import traceback
import types
from datetime import datetime, timedelta, timezone

import erclient.client as erc
from erclient.er_errors import ERClientNotFound

# er-client retries a failed GET five times, 5 s apart: a failing call fails at once here instead
# (the module's own `time` is replaced for this process; er-client's code is not changed).
erc.time = types.SimpleNamespace(sleep=lambda _seconds: None)

ENV = os.environ
PROBE = ENV.get('ER_PROBE') == '1'
results = []
state = {}

# Methods whose server side is not built yet (issue 27 brought them in one by one; none is left):
# not called (docs/er-client.md lists each as "out of scope", "not built yet (issue 27): ..."),
# except with ER_PROBE=1, which calls them and reports them as pending. Turning one on: remove it
# here and mark it "succeeds" in the doc. E.g. NOT_BUILT = {'ERClient.get_events_export'}.
NOT_BUILT = set()


# The last failed HTTP exchange of ERClient (whose exceptions often do not say): added to a failure.
http_failure = {}


def note_failure(response, *_args, **_kwargs):
    if response.status_code >= 400:
        path = response.request.path_url.split('?')[0]
        http_failure['last'] = f'[{response.request.method} {path} -> {response.status_code} {response.text[:300]}]'


def watched(client):
    client._http_session.hooks['response'].append(note_failure)
    return client


def skipped(method):
    return method.split('(')[0] in NOT_BUILT and not PROBE


def record(method, fn, check=None, seed=False):
    """Calls `fn`; the method succeeded when it raised nothing and `check` (if any) holds.

    A seed (`seed=True`) prepares data for later calls; it names the method it relies on, and is
    skipped with it. A NOT_BUILT method (or a seed relying on one) runs only with ER_PROBE=1."""
    if skipped(method):
        return None
    entry = {'method': f'seed: {method}' if seed else method}
    if method.split('(')[0] in NOT_BUILT:
        entry['pending'] = True
    http_failure.clear()
    try:
        value = fn()
        if inspect.isawaitable(value):
            value = asyncio.get_event_loop().run_until_complete(value)
        if check is not None:
            problem = check(value)
            if problem:
                raise AssertionError(problem)
        results.append({**entry, 'ok': True, 'detail': repr(getattr(value, 'text', value))[:400] if PROBE else ''})
        return value
    except Exception as error:  # noqa: BLE001 - every failure is reported, none stops the run
        detail = f"{type(error).__name__}: {error}"[:900] + (f" {http_failure['last']}" if 'last' in http_failure else '')
        results.append({**entry, 'ok': False, 'detail': detail, 'trace': traceback.format_exc()[-1500:]})
        return None


def seed(method, fn, check=None):
    return record(method, fn, check, seed=True)


def expect(condition, message):
    return None if condition else message


def now(minutes=0):
    return datetime.now(tz=timezone.utc) + timedelta(minutes=minutes)


def kwargs(client_id=None):
    return dict(service_root=ENV['ER_BASE'] + '/api/v1.0', username=ENV['ER_USERNAME'], password=ENV['ER_PASSWORD'],
                client_id=client_id or ENV['ER_CLIENT_ID'], token_url=ENV['ER_BASE'] + '/oauth2/token', provider_key=ENV['ER_PROVIDER_KEY'])


def items(value):
    """A list answer, or a page's `results`."""
    if isinstance(value, dict) and isinstance(value.get('results'), list):
        return value['results']
    return value if isinstance(value, list) else []


def ident(value):
    """An id, or the id of an object carrying one."""
    return value.get('id') if isinstance(value, dict) else value


def gone(fn):
    """True when `fn` (a read of something deleted) answers 404."""
    try:
        value = fn()
        if inspect.isawaitable(value):
            asyncio.get_event_loop().run_until_complete(value)
    except ERClientNotFound:
        return True
    return False
