"""Starts the built Lightnet host as a child process and keeps it running.

The child listens on loopback at a free port (it prints one JSON "listening" line), keeps its
data in RotorHazard's data directory (the plugin folder is wiped on every plugin update), and
exits by itself when its stdin closes - which happens when RotorHazard exits or is killed, so
no orphan keeps the gateway's serial port. Everything here runs in gevent greenlets: pipes and
sleeps are cooperative under RotorHazard's monkey-patching and never block lap timing.
"""
import json
import logging
import os
import secrets
import shutil
import subprocess
import time

import gevent

logger = logging.getLogger(__name__)

MIN_NODE = (20, 19)
BACKOFF_S = (1, 2, 5, 10, 30)
LISTEN_TIMEOUT_S = 60


# The exact command that installs a new enough Node on the Pi: Raspberry Pi OS trixie and
# Debian 13 ship Node 20.19+ in apt; older releases (bookworm: Node 18) need NodeSource's.
NODE_FIX = ('sudo apt-get install -y nodejs (Raspberry Pi OS trixie / Debian 13); on bookworm: '
            'curl -fsSL https://deb.nodesource.com/setup_22.x | sudo bash - && sudo apt-get install -y nodejs')


def plugin_dir():
    return os.path.dirname(os.path.realpath(__file__))


def default_host_dir():
    """The built host: host/ inside this plugin folder when installed from the release zip,
    else the Lightnet checkout it lives in (integrations/rotorhazard/lightnet)."""
    bundled = os.path.join(plugin_dir(), 'host')
    if os.path.isfile(os.path.join(bundled, 'dist', 'server', 'main.js')):
        return bundled
    return os.path.normpath(os.path.join(plugin_dir(), '..', '..', '..'))


def node_version(node):
    """(major, minor) of the Node binary, or None when it does not run."""
    try:
        out = subprocess.run([node, '--version'], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    parts = out.strip().lstrip('v').split('.')
    try:
        return int(parts[0]), int(parts[1])
    except (ValueError, IndexError):
        return None


def preflight(node_opt, host_dir_opt):
    """Finds node and the built host; returns (node, main_js, problem or None). A problem
    says what to run to fix it: it is shown on RotorHazard's Lightnet panels."""
    node = node_opt or shutil.which('node') or ''
    host_dir = host_dir_opt or default_host_dir()
    main_js = os.path.join(host_dir, 'dist', 'server', 'main.js')
    then = ' Then restart RotorHazard.'
    if not node:
        return None, main_js, ('Node.js was not found. Lightnet needs Node >= 20.19: run `{}`.{}'
                               .format(NODE_FIX, then))
    version = node_version(node)
    if version is None:
        return None, main_js, ('Node.js at {} does not run. Install Node >= 20.19 with `{}`, or fix "Node binary".{}'
                               .format(node, NODE_FIX, then))
    if version < MIN_NODE:
        return None, main_js, ('Node.js {}.{} at {} is too old: Lightnet needs Node >= 20.19. Run `{}`.{}'
                               .format(version[0], version[1], node, NODE_FIX, then))
    if not os.path.isfile(main_js):
        return node, main_js, ('The Lightnet host is not built ({} is missing): install the plugin from the '
                               'release zip, or run "npm ci && npm run build" in {}.').format(main_js, host_dir)
    return node, main_js, None


class Supervisor:
    """Owns one child host process at a time; restarts it with backoff when it dies."""

    def __init__(self, node, main_js, data_dir, extra_env=None, on_state=None):
        self.node = node
        self.main_js = main_js
        self.data_dir = data_dir
        self.extra_env = extra_env or {}
        self.on_state = on_state or (lambda _s: None)
        self.secret = secrets.token_hex(24)
        self.proc = None
        self.port = None
        self.url = None
        self.state = 'stopped'
        self.detail = ''
        self.restarts = 0
        # Why the last host refused to start, in its own words (e.g. the data folder is
        # owned by another Lightnet host); cleared once a host runs.
        self.failure = None
        self._stopping = False
        self._greenlet = None

    def start(self):
        self._stopping = False
        self._greenlet = gevent.spawn(self._run)

    def _set(self, state, detail=''):
        self.state = state
        self.detail = detail
        self.on_state(self)

    def _spawn(self):
        os.makedirs(self.data_dir, exist_ok=True)
        env = dict(os.environ)
        env.update(self.extra_env)
        # Per start: never on the command line (ps shows argv to every user).
        env['LIGHTNET_INTEGRATION_SECRET'] = self.secret
        # As bin/lightnet: two malloc arenas (glibc's default is 8 per core) keep RSS ~2 MB lower.
        env.setdefault('MALLOC_ARENA_MAX', '2')
        args = [self.node, '--max-semi-space-size=1', '--optimize-for-size', self.main_js, '--integration', 'rotorhazard',
                '--host', '127.0.0.1', '--port', '0', '--prefix', '/lightnet', '--data-dir', self.data_dir,
                '--exit-on-stdin-close']
        # stdin stays a pipe we hold: its EOF is the child's signal that RotorHazard is gone
        # (--exit-on-stdin-close; a host run by hand or as a service does not watch stdin).
        return subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, cwd=self.data_dir)

    def _run(self):
        failures = 0
        while not self._stopping:
            self._set('starting')
            started = time.monotonic()
            try:
                self.proc = self._spawn()
            except OSError as ex:
                self._set('failed', 'cannot start node: {}'.format(ex))
                return
            gevent.spawn(self._drain_stderr, self.proc)
            listening = self._await_listening(self.proc)
            if listening:
                self.failure = None
                self.port = listening['port']
                self.url = 'http://127.0.0.1:{}/lightnet'.format(self.port)
                self._set('running', 'pid {} port {}'.format(self.proc.pid, self.port))
                logger.info('Lightnet host running (pid %s, port %s)', self.proc.pid, self.port)
                gevent.spawn(self._drain_stdout, self.proc)
            code = self.proc.wait()
            self.port = None
            self.url = None
            if self._stopping:
                break
            # A run that lasted a while resets the backoff: only quick crash loops slow down.
            failures = 0 if time.monotonic() - started > 60 else failures + 1
            delay = BACKOFF_S[min(failures, len(BACKOFF_S) - 1)]
            self.restarts += 1
            if self.failure:
                # Restarting cannot help until the cause is gone (e.g. the other host stops),
                # but it keeps trying, and the panel says why it is not running.
                self._set('blocked', '{} (retrying in {} s)'.format(self.failure, delay))
                logger.warning('Lightnet host could not start: %s; retrying in %s s', self.failure, delay)
            else:
                self._set('restarting', 'host exited with code {}; restarting in {} s'.format(code, delay))
                logger.warning('Lightnet host exited with code %s; restarting in %s s', code, delay)
            gevent.sleep(delay)
        self._set('stopped')

    def _await_listening(self, proc):
        deadline = time.monotonic() + LISTEN_TIMEOUT_S
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                return None
            msg = self._parse(line)
            if msg and msg.get('lightnet') == 'listening':
                return msg
            if msg and msg.get('lightnet') == 'failed':
                self.failure = str(msg.get('message') or msg.get('reason') or 'the host refused to start')
            self._log_line(line)
        logger.warning('Lightnet host did not report listening within %s s', LISTEN_TIMEOUT_S)
        proc.kill()
        return None

    @staticmethod
    def _parse(line):
        try:
            msg = json.loads(line.decode('utf-8', 'replace'))
            return msg if isinstance(msg, dict) else None
        except ValueError:
            return None

    def _log_line(self, line):
        """Host log lines (pino JSON) into RotorHazard's log at a matching level."""
        msg = self._parse(line)
        if msg is None:
            text = line.decode('utf-8', 'replace').rstrip()
            if text:
                logger.info('host: %s', text)
            return
        level = msg.get('level', 30)
        extra = {k: v for k, v in msg.items() if k not in ('level', 'time', 'app', 'msg', 'pid', 'hostname')}
        text = 'host: {} {}'.format(msg.get('msg', ''), json.dumps(extra) if extra else '')
        # Only warnings: an ERROR line raises RotorHazard's "an error has occurred" banner.
        if level >= 40:
            logger.warning(text)
        elif level >= 30:
            logger.info(text)
        else:
            logger.debug(text)

    def _drain_stdout(self, proc):
        for line in iter(proc.stdout.readline, b''):
            self._log_line(line)

    def _drain_stderr(self, proc):
        for line in iter(proc.stderr.readline, b''):
            text = line.decode('utf-8', 'replace').rstrip()
            if text:
                logger.warning('host stderr: %s', text)

    def stop(self, timeout=5.0):
        """SIGTERM (the host flushes state and closes the port), then kill after `timeout`."""
        self._stopping = True
        proc = self.proc
        if proc and proc.poll() is None:
            try:
                proc.terminate()
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            except OSError:
                pass
        if self._greenlet is not None:
            self._greenlet.join(timeout=1)
