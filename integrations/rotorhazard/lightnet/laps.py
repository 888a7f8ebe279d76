"""Race lights: RotorHazard's laps and race phases, forwarded to the Lightnet host, which
decides what the gates show (seat mapping, colours, flash, phase looks are its settings).
A thin edge: each handler reads RotorHazard's event payload, posts one small JSON body and
returns.

Laps take a faster path than the other events. A greenlet spawned from RotorHazard's lap
handler only runs once the lap-recording greenlet yields, and that one first rebuilds the
leaderboard (CPU, tens of ms on a Pi). So the lap handler runs inline (priority < 100) and
only writes the request on an already open keep-alive connection to the host (a loopback
send of a few hundred bytes: it does not block); reading the answer, and opening a
connection when none is idle, happen in a greenlet. RotorHazard's lap path never waits.
"""
import http.client
import json
import logging
import time
from urllib.parse import urlsplit

import gevent

from eventmanager import Evt

from .heat import _color
from .hostclient import HostError

LAPS_PATH = '/api/integration/laps'
IDLE_MAX = 4
# The host keeps idle connections 72 s; older ones are not trusted to be open.
IDLE_TRUST_S = 50

logger = logging.getLogger(__name__)

# A flash that cannot reach the host within this is of no use any more.
LAP_TIMEOUT = (0.2, 1.0)
# 4.4.0 stages a scheduled race 18 ms after its schedule-cancel event: look after this long.
SCHEDULE_CANCEL_SETTLE_S = 0.2
PHASES = ('staging', 'start', 'finish', 'win', 'stop', 'heat_change')
PHASE_LABELS = {
    'staging': 'Staging', 'start': 'Start', 'finish': 'Finish (time up)', 'win': 'Winner (winner\'s colour)',
    'stop': 'Stop', 'heat_change': 'Heat change (seat colours)',
}


def _field(obj, name, default=None):
    # RotorHazard's Crossing is a dataclass that also subclasses dict (empty): attributes first.
    if obj is None:
        return default
    if hasattr(obj, name):
        return getattr(obj, name)
    return obj.get(name, default) if isinstance(obj, dict) else default


def lap_body(args, force=False):
    """The lap as the host's /api/integration/laps takes it, or None when it is no lap."""
    seat = args.get('node_index')
    lap = args.get('lap')
    if seat is None or lap is None:
        return None
    # RotorHazard records a pass after the winner was declared as late (and deletes it);
    # such laps, and invalid ones, do not count, so they do not flash.
    late = bool(_field(lap, 'late_lap', False) or _field(lap, 'deleted', False) or _field(lap, 'invalid', False))
    return {
        'seat': int(seat),
        'lap_number': int(_field(lap, 'lap_number', 0) or 0),
        'color': _color(args.get('color')) if args.get('color') is not None else None,
        'late': late,
        'event_epoch_ms': time.time() * 1000,
        'force': force,
    }


def _seconds(v):
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def win_fields(args):
    seat = args.get('node_index')
    seat = int(seat) if isinstance(seat, int) and seat >= 0 else None
    color = args.get('color')
    return {'seat': seat, 'color': _color(color) if color is not None else None}


class LapSender:
    """Keep-alive connections to the host for lap posts (see the module note)."""

    def __init__(self, client):
        self.client = client
        self.idle = []
        self.delivered = 0
        self.failed = 0

    def _target(self):
        base = self.client.base()
        if not base:
            return None
        p = urlsplit(base)
        return p.hostname, p.port or 80, p.path.rstrip('/') + LAPS_PATH

    def warm(self):
        """Opens a connection ahead of the laps (at staging), off RotorHazard's lap path."""
        t = self._target()
        if t and not self.idle:
            conn = http.client.HTTPConnection(t[0], t[1], timeout=LAP_TIMEOUT[1])
            try:
                conn.connect()
                self.idle.append((conn, time.monotonic()))
            except OSError as ex:
                logger.debug('Lightnet: lap connection not opened: %s', ex)

    def send(self, body):
        """Inline in RotorHazard's lap event: never raises, never waits."""
        t = self._target()
        if not t:
            return
        data = json.dumps(body)
        headers = self.client.headers(True)
        conn = None
        while self.idle and conn is None:
            conn, used = self.idle.pop()
            if time.monotonic() - used > IDLE_TRUST_S:
                conn.close()
                conn = None
        if conn is not None:
            try:
                conn.request('POST', t[2], body=data, headers=headers)
                gevent.spawn(self._finish, conn, (t, data, headers))
                return
            except (OSError, http.client.HTTPException):
                conn.close()  # the host closed it meanwhile: a new one, in a greenlet
        gevent.spawn(self._send_new, t, data, headers)

    def _send_new(self, t, data, headers):
        conn = http.client.HTTPConnection(t[0], t[1], timeout=LAP_TIMEOUT[1])
        try:
            conn.request('POST', t[2], body=data, headers=headers)
        except (OSError, http.client.HTTPException) as ex:
            conn.close()
            self.failed += 1
            logger.debug('Lightnet: lap not delivered: %s', ex)
            return
        self._finish(conn)

    def _finish(self, conn, retry=None):
        """Reads the answer; a reused connection the host had closed is retried once anew."""
        try:
            r = conn.getresponse()
            r.read()
        except (OSError, http.client.HTTPException) as ex:
            conn.close()
            if retry is not None:
                self._send_new(*retry)
                return
            self.failed += 1
            logger.debug('Lightnet: lap answer lost: %s', ex)
            return
        if r.status >= 400:
            self.failed += 1
            logger.debug('Lightnet: lap refused: HTTP %s', r.status)
        else:
            self.delivered += 1
        if r.will_close or len(self.idle) >= IDLE_MAX:
            conn.close()
        else:
            self.idle.append((conn, time.monotonic()))


class RaceLights:
    def __init__(self, rhapi, client, push_heat_now):
        self.rhapi = rhapi
        self.client = client
        self.push_heat_now = push_heat_now
        self.sender = LapSender(client)

    def install(self):
        ev = self.rhapi.events
        # Inline (priority < 100): the handler only writes on an open connection (LapSender).
        ev.on(Evt.RACE_LAP_RECORDED, self.on_lap, priority=90, name='lightnet_lap')
        ev.on(Evt.RACE_START, lambda a: self.post_phase('start'), priority=102, name='lightnet_phase_start')
        ev.on(Evt.RACE_FINISH, lambda a: self.post_phase('finish'), priority=150, name='lightnet_phase_finish')
        ev.on(Evt.RACE_WIN, lambda a: self.post_phase('win', **win_fields(a)), priority=150,
              name='lightnet_phase_win')
        ev.on(Evt.RACE_STOP, lambda a: self.post_phase('stop'), priority=150, name='lightnet_phase_stop')
        ev.on(Evt.HEAT_SET, self.on_heat_set, priority=160, name='lightnet_phase_heat')
        ev.on(Evt.RACE_PILOT_DONE, self.on_pilot_done, priority=150, name='lightnet_phase_pilot_done')
        ev.on(Evt.RACE_SCHEDULE, self.on_schedule, priority=150, name='lightnet_phase_scheduled')
        ev.on(Evt.RACE_SCHEDULE_CANCEL, self.on_schedule_cancel, priority=150, name='lightnet_schedule_cancel')
        # RotorHazard 4.4.1-dev announces each staging tone SYNC_LEADTIME_SECS ahead; 4.4.0 has
        # no such event (the host derives the tones from the stage event).
        tone = getattr(Evt, 'RACE_STAGE_TONE', None)
        if tone:
            ev.on(tone, self.on_tone, priority=150, name='lightnet_stage_tone')

    def on_lap(self, args, force=False):
        try:
            body = lap_body(args, force)
            if body is not None:
                self.sender.send(body)
        except Exception as ex:  # inline in RotorHazard's lap path: never let anything out
            logger.warning('Lightnet: lap not forwarded: %s', ex)

    def on_stage(self, args):
        """Staging announces its moments: the host schedules staging, the countdown's tones
        and GO on them. The monotonic moments are RotorHazard's own clock, which the host
        on this machine reads too; the epoch fields (through an offset fixed at RotorHazard's
        start) are the fallback."""
        self.sender.warm()
        tones = args.get('staging_tones')
        self.post_phase('stage', staging_epoch_ms=args.get('server_staging_epoch_ms'),
                        start_epoch_ms=args.get('server_start_epoch_ms'),
                        staging_monotonic_s=_seconds(args.get('pi_staging_at_s')),
                        start_monotonic_s=_seconds(args.get('pi_starts_at_s')),
                        staging_tones=int(tones) if isinstance(tones, (int, float)) else None)

    def on_tone(self, args):
        """A staging tone, announced SYNC_LEADTIME_SECS before it sounds (4.4.1-dev)."""
        at = _seconds(args.get('scheduled_at_monotonic'))
        if at is None or args.get('tone_index') is None:
            return
        body = {'tone_index': int(args.get('tone_index')), 'tones_remaining': int(args.get('tones_remaining') or 0),
                'at_monotonic_s': at, 'at_epoch_ms': time.time() * 1000 + (at - time.monotonic()) * 1000}
        try:
            self.client.post('/api/integration/race/tone', body, integration=True)
        except HostError as ex:
            logger.debug('Lightnet: stage tone not delivered: %s', ex)

    def on_pilot_done(self, args):
        seat = args.get('node_index')
        if isinstance(seat, int) and seat >= 0:
            self.post_phase('pilot_done', **win_fields(args))

    def on_schedule(self, _args):
        self.post_phase('scheduled')

    def on_schedule_cancel(self, _args):
        """A schedule cancelled by the operator clears its look. RotorHazard 4.4.0 also sends
        this right before staging a scheduled race (timers reference §1.8): a race that is
        staging a moment later was not cancelled."""
        gevent.sleep(SCHEDULE_CANCEL_SETTLE_S)
        if self.rhapi.race.status in (1, 3):  # RACING, STAGING
            return
        try:
            self.client.post('/api/integration/race/cancel', {'reason': 'schedule cancelled'}, integration=True)
        except HostError as ex:
            logger.debug('Lightnet: schedule cancel not delivered: %s', ex)

    def on_heat_set(self, _args):
        # The heat-change look shows the new heat's seat colours: the heat goes first.
        self.push_heat_now()
        self.post_phase('heat_change')

    def post_phase(self, phase, force=False, **extra):
        body = dict(extra, phase=phase, force=force)
        try:
            self.client.post('/api/integration/race/phase', body, integration=True)
        except HostError as ex:
            logger.debug('Lightnet: race phase %s not delivered: %s', phase, ex)

    # --- Event Actions (RotorHazard's own UI): run whatever the automatic setting says ---

    def effect_lap_flash(self, _action, args):
        if args.get('_eventName') != Evt.RACE_LAP_RECORDED:
            self.rhapi.ui.message_notify('Lightnet: "flash the lap\'s gate" needs the Lap Recorded event')
            return
        self.on_lap(args, True)

    def effect_phase(self, action, args):
        phase = action.get('lightnet_phase')
        if phase not in PHASES:
            return
        extra = win_fields(args) if phase == 'win' else {}
        self.post_phase(phase, force=True, **extra)
