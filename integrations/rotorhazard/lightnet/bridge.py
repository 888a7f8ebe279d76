"""The plugin's core: starts or attaches to the Lightnet host, forwards RotorHazard's heat and
race start to it, and runs the Event Actions. A thin edge - the host decides what happens;
this file only translates. Every handler that talks to the host runs in its own greenlet
(RotorHazard's priority >= 100) with short timeouts, so lap timing is never held up.
"""
import atexit
import json
import logging
import os
import time

import gevent
import gevent.event

from eventmanager import Evt

from .heat import build_heat
from .laps import RaceLights
from .rl_settings import RaceLightsPanel
from .hostclient import HostClient, HostError, follow_refresh
from .rh_ui import ALL_GROUPS, RhUi
from .supervisor import Supervisor, preflight

logger = logging.getLogger(__name__)

HEAT_EVENTS = ('HEAT_SET', 'HEAT_ALTER', 'PILOT_ALTER', 'FREQUENCY_SET', 'PROFILE_SET', 'RACE_STAGE',
               'DATABASE_RESET', 'DATABASE_RESTORE', 'DATABASE_RECOVER', 'DATABASE_INITIALIZE')
CANCEL_EVENTS = ('RACE_ABORT', 'RACE_STOP')
RACE_BUSY = (1, 3)  # RaceStatus RACING, STAGING: no panel re-render now
REFRESH_DEBOUNCE_S = 1.0


class Bridge:
    def __init__(self, rhapi):
        self.rhapi = rhapi
        self.supervisor = None
        self.attach_url = None
        self.problem = None
        self.mode = 'managed'
        self.client = HostClient(self._base_url, self._secret, self._password)
        self.ui = RhUi(rhapi, self)
        self.race_lights = RaceLights(rhapi, self.client, self.push_heat_now)
        self.rl_panel = RaceLightsPanel(rhapi, self.client)
        self._stop = gevent.event.Event()
        self._heat_pending = False
        self._pending_tokens = set()
        self._refresh_scheduled = False
        self._status_dirty = True
        self._status_text = None
        self.last_stage = None
        self.last_effect = None
        # Race Start scenes the host already starts by itself at the announced start.
        self.scheduled = {}

    # --- wiring -------------------------------------------------------------------

    def install(self):
        ev = self.rhapi.events
        ev.on(Evt.STARTUP, self.on_startup, name='lightnet_startup')
        # Synchronous (priority < 100): RotorHazard exits right after SHUTDOWN returns.
        ev.on(Evt.SHUTDOWN, self.on_shutdown, priority=50, name='lightnet_shutdown')
        ev.on(Evt.ACTIONS_INITIALIZE, self.ui.on_actions_initialize, name='lightnet_actions')
        for name in HEAT_EVENTS:
            evt = getattr(Evt, name, None)
            if evt:
                ev.on(evt, self.on_heat_event, priority=150, name='lightnet_heat_' + name.lower())
        ev.on(Evt.RACE_STAGE, self.on_race_stage, priority=110, name='lightnet_race_stage')
        for name in CANCEL_EVENTS:
            ev.on(getattr(Evt, name), self.on_race_cancel, priority=150, name='lightnet_cancel_' + name.lower())
        self.race_lights.install()
        self.ui.register_static()
        self.rl_panel.register()
        from .proxy import make_blueprint
        self.rhapi.ui.blueprint_add(make_blueprint(self.rhapi, self.upstream, self.status))
        atexit.register(self.stop)

    def _base_url(self):
        if self.attach_url:
            return self.attach_url
        return self.supervisor.url if self.supervisor else None

    def _secret(self):
        if self.supervisor:
            return self.supervisor.secret
        return os.environ.get('LIGHTNET_INTEGRATION_SECRET', '')

    def _password(self):
        return self.rhapi.db.option('lightnet_password', '') if self.attach_url else ''

    def upstream(self):
        """(host, port) for the proxy, or (None, reason)."""
        if self.attach_url:
            from urllib.parse import urlsplit
            p = urlsplit(self.attach_url)
            return p.hostname, p.port or 80
        s = self.supervisor
        if s and s.port:
            return '127.0.0.1', s.port
        return None, self.problem or (s.detail if s else 'starting')

    def status(self):
        s = self.supervisor
        return {
            'mode': self.mode,
            'problem': self.problem,
            'host': None if not s else {'state': s.state, 'detail': s.detail, 'pid': s.proc.pid if s.proc else None,
                                        'port': s.port, 'restarts': s.restarts},
            'attach_url': self.attach_url,
            'last_stage': self.last_stage,
            'last_effect': self.last_effect,
            'laps': {'delivered': self.race_lights.sender.delivered, 'failed': self.race_lights.sender.failed},
        }

    # --- lifecycle ----------------------------------------------------------------

    def on_startup(self, _args=None):
        db = self.rhapi.db
        self.mode = db.option('lightnet_mode', 'managed') or 'managed'
        if self.mode == 'attach':
            self.attach_url = (db.option('lightnet_url', '') or '').rstrip('/')
            logger.info('Lightnet: attaching to %s', self.attach_url)
        else:
            node, main_js, problem = preflight(db.option('lightnet_node', ''), db.option('lightnet_host_dir', ''))
            if problem:
                self.problem = problem
                # A warning, not an error: RotorHazard keeps running, the panel says what to do.
                logger.warning('Lightnet: %s', problem)
                self.ui.set_status('**Lightnet is not running.** ' + problem)
                self.rhapi.ui.message_notify('Lightnet: ' + problem)
                return
            data_root = getattr(self.rhapi.server, 'data_dir', None) or os.path.expanduser('~')
            env = {}
            gateway = (db.option('lightnet_gateway', '') or '').strip()
            if gateway:
                env['LIGHTNET_GATEWAY'] = gateway
            self.supervisor = Supervisor(node, main_js, os.path.join(data_root, 'lightnet'), env,
                                         on_state=lambda _s: self.status_dirty())
            self.supervisor.start()
        gevent.spawn(follow_refresh, self.client, self.on_refresh, self.on_host_connected, self._stop)
        gevent.spawn(self._status_loop)

    def on_shutdown(self, _args=None):
        self.stop()

    def stop(self):
        """Idempotent; also run from atexit, when gevent may already be winding down (the
        host then still ends by itself: its stdin closes with this process)."""
        self._stop.set()
        if self.supervisor:
            try:
                self.supervisor.stop()
            except Exception as ex:
                logger.info('Lightnet: host stop at exit: %s', ex)

    def on_host_connected(self):
        logger.info('Lightnet: connected to the host at %s', self._base_url())
        gevent.spawn(self.ui.refresh, ['scenes', 'native_presets', 'groups', 'devices'])
        gevent.spawn(self.rl_panel.refresh, self.ui.lists)
        self.push_heat_later()

    def on_refresh(self, tokens):
        """Coalesces refresh bursts (every node reply refreshes `devices`) into one pass per
        second, and none while a race is staged or running: fetching and parsing the host's
        lists costs CPU on the loop that also times the laps."""
        self._pending_tokens.update(tokens)
        if self._refresh_scheduled:
            return
        self._refresh_scheduled = True

        def run():
            gevent.sleep(REFRESH_DEBOUNCE_S)
            while self.rhapi.race.status in RACE_BUSY and not self._stop.is_set():
                gevent.sleep(1)
            tokens_now, self._pending_tokens = list(self._pending_tokens), set()
            self._refresh_scheduled = False
            self.ui.refresh(tokens_now)
            if any(t in ('groups', 'devices', 'scenes') for t in tokens_now):
                self.rl_panel.refresh(self.ui.lists)
        gevent.spawn(run)

    def status_dirty(self):
        self._status_dirty = True

    def broadcast(self, page):
        if self.rhapi.race.status in RACE_BUSY:
            return
        self.rhapi.ui.broadcast_ui(page)

    def _status_loop(self):
        while not self._stop.is_set():
            gevent.sleep(3)
            if not self._status_dirty or self.rhapi.race.status in RACE_BUSY:
                continue
            self._status_dirty = False
            text = self._status_markdown()
            if text != self._status_text:
                self._status_text = text
                self.ui.set_status(text)
                self.broadcast('run')

    def _status_markdown(self):
        if self.problem:
            return '**Lightnet is not running.** ' + self.problem
        s = self.supervisor
        if s and s.failure and s.state != 'running':
            return '**Lightnet is not running.** ' + s.detail
        try:
            health = self.client.get('/api/health')
            gw = self.client.get('/api/gateway').get('gateway', {})
            devices = self.client.get('/api/devices').get('devices', [])
            task = self.client.get('/api/task').get('task')
        except HostError as ex:
            return 'Lightnet host: {}'.format(ex)
        online = sum(1 for d in devices if d.get('online'))
        lines = ['Gateway: **{}** ({})'.format('ready' if gw.get('ready') else 'not ready', gw.get('transport', '?')),
                 'Devices online: **{} / {}**'.format(online, len(devices))]
        data = health.get('data') or {}
        if data.get('simulated'):
            lines.insert(0, '**Simulator** — simulated devices, kept in {} (not the real data folder)'.format(
                data.get('dir', '?')))
        elif data.get('dir'):
            lines.append('Data folder: {}'.format(data.get('dir')))
        if task and task.get('state') == 'running':
            meta = task.get('meta') or {}
            lines.append('Running: {} {}'.format(task.get('name'), meta.get('message', '')))
        lines.append('<a href="/lightnet/" target="_blank">Open Lightnet</a>')
        return '\n\n'.join(lines)

    # --- heat -----------------------------------------------------------------------

    def on_heat_event(self, _args):
        self.push_heat_later()

    def _bound_race_start_scenes(self):
        """Scenes bound to Race Start in RotorHazard's Event Actions (its config, USER.actions)."""
        try:
            actions = json.loads(self.rhapi.config.get('USER', 'actions') or '[]')
        except (TypeError, ValueError):
            return []
        return [a.get('lightnet_scene') for a in actions if isinstance(a, dict) and a.get('event') == Evt.RACE_START
                and a.get('effect') == 'lightnet_scene' and a.get('lightnet_scene')]

    def on_race_stage(self, args):
        """RotorHazard announces the start instant at staging: the host starts Race Start scenes
        at that instant itself, instead of after RACE_START has travelled through RotorHazard's
        event greenlets and HTTP (tens of ms on a loaded Pi). The Event Action then only checks
        that it was done."""
        gevent.spawn(self.race_lights.on_stage, args)
        start = args.get('server_start_epoch_ms')
        self.last_stage = {'server_start_epoch_ms': start, 'received_epoch_ms': int(time.time() * 1000)}
        self.scheduled = {}
        if start is None:
            return
        for key in self._bound_race_start_scenes():
            try:
                self.client.post('/api/integration/scenes/{}/schedule'.format(key), {'at_epoch_ms': int(start)},
                                 integration=True)
                self.scheduled[key] = start
            except HostError as ex:
                logger.info('Lightnet: scene %s not scheduled (%s); it runs on the Race Start event', key, ex)

    def push_heat_later(self):
        """Coalesces bursts (a heat edit fires several events) into one PUT."""
        if self._heat_pending:
            return
        self._heat_pending = True

        def run():
            gevent.sleep(0.05)
            self._heat_pending = False
            self.push_heat_now()
        gevent.spawn(run)

    def push_heat_now(self):
        try:
            self.client.put('/api/integration/heat', build_heat(self.rhapi), integration=True)
        except HostError as ex:
            logger.debug('Lightnet: heat not delivered: %s', ex)
        except Exception as ex:  # RotorHazard data in an unexpected shape: say so, keep running
            logger.warning('Lightnet: could not read the current heat: %s', ex)

    def on_race_cancel(self, _args):
        try:
            self.client.post('/api/integration/race/cancel', {'reason': 'race stopped'}, integration=True)
        except HostError as ex:
            logger.debug('Lightnet: cancel not delivered: %s', ex)

    # --- Event Actions ----------------------------------------------------------------

    def _call(self, what, fn):
        try:
            return fn()
        except HostError as ex:
            logger.warning('Lightnet %s failed: %s', what, ex)
            self.rhapi.ui.message_notify('Lightnet {}: {}'.format(what, ex))
            return None

    def _run(self, key, body=None):
        return self._call('scene ' + key, lambda: self.client.post(
            '/api/integration/scenes/{}/run'.format(key), body or {}, integration=True))

    def effect_run_scene(self, action, args):
        key = action.get('lightnet_scene')
        if key and args.get('_eventName') == Evt.RACE_START and self.scheduled.pop(key, None) is not None:
            return  # the host started it at the announced instant
        if key:
            entered = time.time() * 1000
            self._run(key)
            self.last_effect = {'effect': 'lightnet_scene', 'entered_epoch_ms': entered,
                                'answered_epoch_ms': time.time() * 1000}

    def effect_arm_start(self, action, args):
        start = args.get('server_start_epoch_ms')
        if start is None:
            self.rhapi.ui.message_notify('Lightnet: "arm scene" needs the Race Stage event (it carries the start time)')
            return
        body = {'scene': action.get('lightnet_arm_scene') or None, 'start_epoch_ms': int(start)}
        self._call('race start', lambda: self.client.post('/api/integration/race/arm', body, integration=True))

    @staticmethod
    def _group_target(value):
        if value in (None, '', ALL_GROUPS):
            return {'kind': 'broadcast'}
        return {'kind': 'groups', 'value': [int(value)]}

    def effect_preset_group(self, action, _args):
        preset = action.get('lightnet_preset')
        if not preset:
            return
        params = {'presetId': preset}
        bri = str(action.get('lightnet_brightness') or '').strip()
        if bri.isdigit():
            params['brightness'] = max(0, min(255, int(bri)))
        self._run('rh-preset', {'label': 'preset from RotorHazard', 'actions': [
            {'kind': 'native_preset', 'target': self._group_target(action.get('lightnet_group')), 'params': params}]})

    def _startblocks(self, target):
        self.push_heat_now()
        self._run('rh-startblocks', {'label': 'start blocks from RotorHazard',
                                     'actions': [{'kind': 'startblock', 'target': target, 'params': {}}]})

    def effect_startblock_group(self, action, _args):
        self._startblocks(self._group_target(action.get('lightnet_sb_group')))

    def effect_startblock_device(self, action, _args):
        addr = action.get('lightnet_sb_device')
        if addr:
            self._startblocks({'kind': 'device', 'value': addr})

    def effect_device_action(self, action, _args):
        mac, fn = action.get('lightnet_device'), action.get('lightnet_function')
        if not mac or not fn:
            return
        if fn == 'startblock_control':
            self.push_heat_now()
        self._call('device action', lambda: self.client.post('/api/specials/action', {'mac': mac, 'function': fn}))

    # --- quick buttons (RotorHazard calls these inside its socket handler: hand off) ------

    def quick_scene(self, args):
        key = (args or {}).get('scene')
        if key:
            gevent.spawn(self._run, key)

    def quick_startblocks(self, _args=None):
        gevent.spawn(self._startblocks, {'kind': 'broadcast'})

    def flag(self, flag):
        """A race flag (green, yellow, red, clear) over the whole field; red holds the race
        looks back until cleared."""
        return self._call('flag ' + flag, lambda: self.client.post(
            '/api/integration/flags/{}'.format(flag), {}, integration=True))

    def effect_flag(self, action, _args):
        flag = action.get('lightnet_flag')
        if flag in ('green', 'yellow', 'red', 'clear'):
            self.flag(flag)

    def quick_flag(self, args=None):
        gevent.spawn(self.flag, (args or {}).get('flag', 'red'))

    def quick_stop(self, _args=None):
        gevent.spawn(self._call, 'stop', lambda: self.client.post('/api/scenes/cancel', {}))

    def quick_restart(self, _args=None):
        s = self.supervisor
        if s and s.proc and s.proc.poll() is None:
            logger.info('Lightnet: restart requested from RotorHazard')
            gevent.spawn(s.proc.terminate)
