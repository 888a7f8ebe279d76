"""Calls into the Lightnet host: its public API for lists and device actions, the plugin-only
integration API (shared secret) for heat and race start, and its SSE stream for `refresh`
scopes. requests is cooperative under RotorHazard's gevent monkey-patching; every call has a
short timeout so an unreachable host can never hold an event greenlet for long.
"""
import http.client
import json
import logging
from urllib.parse import urlsplit

import gevent
import requests

logger = logging.getLogger(__name__)

SECRET_HEADER = 'X-Lightnet-Integration'
TIMEOUT = (0.5, 5.0)


class HostError(Exception):
    pass


class HostClient:
    def __init__(self, base_url_fn, secret_fn, password_fn=lambda: ''):
        self._base = base_url_fn
        self._secret = secret_fn
        self._password = password_fn
        # One pooled session: loopback keep-alive saves a connect per call.
        self._session = requests.Session()

    def base(self):
        return self._base()

    def auth_headers(self):
        pw = self._password()
        return {'Authorization': 'Bearer ' + pw} if pw else {}

    def headers(self, integration):
        return self._headers(integration)

    def _headers(self, integration):
        headers = {'Content-Type': 'application/json'}
        if integration:
            headers[SECRET_HEADER] = self._secret() or ''
        pw = self._password()
        if pw:
            headers['Authorization'] = 'Bearer ' + pw
        return headers

    def request(self, method, path, body=None, integration=False, timeout=TIMEOUT):
        base = self.base()
        if not base:
            raise HostError('Lightnet host is not running')
        try:
            r = self._session.request(method, base + path, data=None if body is None else json.dumps(body),
                                      headers=self._headers(integration), timeout=timeout)
        except requests.RequestException as ex:
            raise HostError('Lightnet host unreachable: {}'.format(ex.__class__.__name__))
        try:
            data = r.json()
        except ValueError:
            data = {}
        if r.status_code >= 400:
            raise HostError(data.get('error') or 'HTTP {}'.format(r.status_code))
        return data

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def post(self, path, body=None, **kw):
        return self.request('POST', path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.request('PUT', path, body, **kw)


def sse_events(base, headers=None, read_timeout=10):
    """Yields (event, data) from the host's SSE stream until it ends. http.client's read1
    returns whatever arrived, so each event is seen at once (requests would wait for a full
    chunk). The host's 2 s keep-alive comments keep the read timeout from firing."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=read_timeout)
    try:
        conn.request('GET', parts.path + '/sse', headers=dict(headers or {}, Accept='text/event-stream'))
        resp = conn.getresponse()
        if resp.status != 200:
            raise HostError('SSE HTTP {}'.format(resp.status))
        yield ('open', None)
        buf = b''
        event, data = None, []
        while True:
            chunk = resp.read1(65536)
            if not chunk:
                return
            buf += chunk
            while b'\n' in buf:
                raw, buf = buf.split(b'\n', 1)
                line = raw.decode('utf-8', 'replace').rstrip('\r')
                if line == '':
                    if event is not None or data:
                        yield (event or 'message', '\n'.join(data))
                    event, data = None, []
                elif line.startswith('event:'):
                    event = line[6:].strip()
                elif line.startswith('data:'):
                    data.append(line[5:].lstrip())
    finally:
        conn.close()


def follow_refresh(client, on_tokens, on_connect, stop_event):
    """Calls on_tokens(list) per host `refresh` event and on_connect() after every
    (re)connect (the lists may have changed while we were away). Runs until stop_event is
    set; reconnects after a short pause."""
    while not stop_event.is_set():
        base = client.base()
        if not base:
            gevent.sleep(1)
            continue
        try:
            for event, data in sse_events(base, client.auth_headers()):
                if stop_event.is_set():
                    return
                if event == 'open':
                    on_connect()
                elif event == 'refresh':
                    try:
                        what = json.loads(data).get('what') or []
                    except ValueError:
                        what = []
                    on_tokens(list(what))
        except (OSError, http.client.HTTPException, HostError) as ex:
            logger.debug('Lightnet SSE reconnecting: %s', ex)
        gevent.sleep(1)
