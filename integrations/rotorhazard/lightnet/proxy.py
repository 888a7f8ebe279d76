"""Lightnet's UI, API and SSE on RotorHazard's own port, at /lightnet.

A raw pass-through with the standard library's http.client (cooperative under RotorHazard's
gevent monkey-patching): the browser's Host header is kept, because the host refuses a
state-changing request whose Origin does not match its Host; bodies are not decoded or
re-encoded (compressed answers pass as they are); an SSE answer is written on as each piece
arrives (read1), and the upstream stream is closed as soon as the browser has gone (the
host's 2 s keep-alive comment makes the next write fail).
"""
import hmac
import http.client
import json
import logging

from flask import Blueprint, Response, request

logger = logging.getLogger(__name__)

PREFIX = '/lightnet'
HOP_BY_HOP = {'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer',
              'trailers', 'transfer-encoding', 'upgrade'}
CHUNK = 65536


def admin_ok(rhapi):
    """RotorHazard's admin login (HTTP basic auth) guards /lightnet too, unless RH runs open."""
    user = rhapi.config.get('SECRETS', 'ADMIN_USERNAME') or ''
    password = rhapi.config.get('SECRETS', 'ADMIN_PASSWORD') or ''
    if not user and not password:
        return True
    auth = request.authorization
    if not auth or auth.username is None or auth.password is None:
        return False
    return hmac.compare_digest(auth.username, user) and hmac.compare_digest(auth.password, password)


def _unauthorized():
    return Response('Lightnet: RotorHazard admin login required', 401,
                    {'WWW-Authenticate': 'Basic realm="Login Required"'})


def _host_down(path, accept, why):
    if path == 'sse' or path == 'api/events' or 'text/event-stream' in accept:
        # 200 + retry: an EventSource given a 5xx would give up instead of reconnecting.
        body = 'retry: 2000\nevent: host_down\ndata: {}\n\n'.format(json.dumps({'reason': why}))
        return Response(body, 200, {'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache'})
    if path.startswith('api/'):
        return Response(json.dumps({'ok': False, 'error': 'lightnet host unavailable: ' + why}), 502,
                        {'Content-Type': 'application/json'})
    page = ('<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="3">'
            '<title>Lightnet</title><p>Lightnet is not available yet: {}. This page retries every 3 s.</p>')
    return Response(page.format(why), 503, {'Content-Type': 'text/html; charset=utf-8', 'Retry-After': '3'})


def make_blueprint(rhapi, upstream_fn, status_fn):
    """upstream_fn() -> (host, port) of the running Lightnet host, or (None, reason)."""
    bp = Blueprint('lightnet_proxy', __name__)

    @bp.route(PREFIX + '/_rh/status')
    def plugin_status():
        if not admin_ok(rhapi):
            return _unauthorized()
        return Response(json.dumps(status_fn()), 200, {'Content-Type': 'application/json'})

    @bp.route(PREFIX, methods=['GET'])
    def bare():
        return Response('', 308, {'Location': PREFIX + '/'})

    methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

    @bp.route(PREFIX + '/', defaults={'path': ''}, methods=methods)
    @bp.route(PREFIX + '/<path:path>', methods=methods)
    def proxy(path):
        if not admin_ok(rhapi):
            return _unauthorized()
        host, port = upstream_fn()
        accept = request.headers.get('Accept', '')
        if host is None:
            return _host_down(path, accept, port or 'not running')
        target = PREFIX + '/' + path
        if request.query_string:
            target += '?' + request.query_string.decode('latin-1')
        headers = [(k, v) for k, v in request.headers.items()
                   if k.lower() not in HOP_BY_HOP and k.lower() != 'authorization']
        headers.append(('X-Forwarded-For', request.remote_addr or ''))
        headers.append(('X-Forwarded-Proto', request.scheme))
        headers.append(('Connection', 'close'))
        body = request.get_data()
        is_sse = path in ('sse', 'api/events')
        # SSE: the host writes a keep-alive every 2 s, so 30 s of silence means it is gone.
        conn = http.client.HTTPConnection(host, port, timeout=30 if is_sse else 120)
        try:
            # Host is among the copied headers: the browser's, not ours.
            conn.putrequest(request.method, target, skip_host=True, skip_accept_encoding=True)
            for k, v in headers:
                if k.lower() == 'content-length':
                    continue
                conn.putheader(k, v)
            if body or request.method in ('POST', 'PUT', 'PATCH'):
                conn.putheader('Content-Length', str(len(body)))
            conn.endheaders(body if body else None)
            upstream = conn.getresponse()
        except (OSError, http.client.HTTPException) as ex:
            conn.close()
            return _host_down(path, accept, 'unreachable ({})'.format(ex.__class__.__name__))

        stream = is_sse or (upstream.getheader('Content-Type') or '').startswith('text/event-stream')
        out_headers = [(k, v) for k, v in upstream.getheaders() if k.lower() not in HOP_BY_HOP]
        if stream:
            out_headers = [(k, v) for k, v in out_headers if k.lower() not in ('content-length', 'cache-control')]
            out_headers.append(('X-Accel-Buffering', 'no'))
            out_headers.append(('Cache-Control', 'no-cache'))

        def generate():
            try:
                while True:
                    chunk = upstream.read1(CHUNK) if stream else upstream.read(CHUNK)
                    if not chunk:
                        break
                    yield chunk
            except (OSError, http.client.HTTPException):
                pass
            finally:
                conn.close()

        return Response(generate(), status=upstream.status, headers=out_headers, direct_passthrough=True)

    return bp

