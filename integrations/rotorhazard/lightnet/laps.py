"""Race lights: RotorHazard's laps and race phases, forwarded to the Lightnet host, which
decides what the gates show (seat mapping, colours, flash, phase looks are its settings).
A thin edge: each handler reads RotorHazard's event payload, posts one small JSON body and
returns. Laps run in their own greenlet (priority >= 100) with a short timeout, so the
lap-recording path of RotorHazard never waits for Lightnet.
"""
import logging
import time

import gevent

from eventmanager import Evt

from .heat import _color
from .hostclient import HostError

logger = logging.getLogger(__name__)

# A flash that cannot reach the host within this is of no use any more.
LAP_TIMEOUT = (0.2, 1.0)
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


def win_fields(args):
    seat = args.get('node_index')
    seat = int(seat) if isinstance(seat, int) and seat >= 0 else None
    color = args.get('color')
    return {'seat': seat, 'color': _color(color) if color is not None else None}


class RaceLights:
    def __init__(self, rhapi, client, push_heat_now):
        self.rhapi = rhapi
        self.client = client
        self.push_heat_now = push_heat_now

    def install(self):
        ev = self.rhapi.events
        # Laps first among our handlers (each is its own greenlet: RotorHazard never waits).
        ev.on(Evt.RACE_LAP_RECORDED, self.on_lap, priority=101, name='lightnet_lap')
        ev.on(Evt.RACE_START, lambda a: self.post_phase('start'), priority=102, name='lightnet_phase_start')
        ev.on(Evt.RACE_FINISH, lambda a: self.post_phase('finish'), priority=150, name='lightnet_phase_finish')
        ev.on(Evt.RACE_WIN, lambda a: self.post_phase('win', **win_fields(a)), priority=150,
              name='lightnet_phase_win')
        ev.on(Evt.RACE_STOP, lambda a: self.post_phase('stop'), priority=150, name='lightnet_phase_stop')
        ev.on(Evt.HEAT_SET, self.on_heat_set, priority=160, name='lightnet_phase_heat')

    def on_lap(self, args, force=False):
        body = lap_body(args, force)
        if body is None:
            return
        try:
            self.client.request('POST', '/api/integration/laps', body, integration=True, timeout=LAP_TIMEOUT)
        except HostError as ex:
            logger.debug('Lightnet: lap not delivered: %s', ex)

    def on_stage(self, args):
        """Staging announces its moments: the host schedules staging and start on them."""
        self.post_phase('stage', staging_epoch_ms=args.get('server_staging_epoch_ms'),
                        start_epoch_ms=args.get('server_start_epoch_ms'))

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
        gevent.spawn(self.on_lap, args, True)

    def effect_phase(self, action, args):
        phase = action.get('lightnet_phase')
        if phase not in PHASES:
            return
        extra = win_fields(args) if phase == 'win' else {}
        self.post_phase(phase, force=True, **extra)
