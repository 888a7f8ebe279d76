"""The race lights settings as a RotorHazard settings panel ("Lightnet race lights"). The
settings live in the Lightnet host (GET/PUT /api/race-lights); every field here is a
function binding: its value is read from the host's copy, a change is sent to the host,
which validates it. A refused change is reported in RotorHazard and the panel shows the
host's value again.
"""
import copy
import logging
import time

import gevent
import gevent.lock

from RHUI import UIField, UIFieldSelectOption, UIFieldType

from .hostclient import HostError
from .laps import PHASE_LABELS, PHASES

logger = logging.getLogger(__name__)

PANEL = 'lightnet_race_lights'
SEATS = 8
FRESH_S = 2.0
RACE_BUSY = (1, 3)
NO_GATE, ALL_DEVICES = '', 'all'
OFF, BUILTIN = 'off', 'builtin'


def gate_value(g):
    if not g:
        return NO_GATE
    if g.get('kind') == 'group':
        return 'g:{}'.format(g.get('value'))
    if g.get('kind') == 'device':
        return 'd:{}'.format(g.get('value'))
    return ALL_DEVICES


def gate_from(value):
    value = (value or '').strip()
    if value == NO_GATE:
        return None
    if value == ALL_DEVICES:
        return {'kind': 'broadcast'}
    kind, _, rest = value.partition(':')
    if kind == 'g' and rest.isdigit():
        return {'kind': 'group', 'value': int(rest)}
    if kind == 'd':
        return {'kind': 'device', 'value': rest}
    return {'kind': value}  # the host names what is wrong


def truthy(v):
    return v not in (False, 0, '0', '', 'false', 'False', None)


def as_int(v):
    try:
        return int(str(v).strip())
    except (TypeError, ValueError):
        return v  # the host refuses it, naming the field


def _seat(settings, seat):
    for s in settings.setdefault('seats', []):
        if s.get('seat') == seat:
            return s
    s = {'seat': seat, 'gate': None, 'color': None}
    settings['seats'].append(s)
    return s


def _read(settings, key):
    """The panel value of one field from the host's settings."""
    flash = settings.get('flash') or {}
    if key == 'enabled':
        return bool(settings.get('enabled', True))
    if key == 'all_gate':
        return gate_value(settings.get('all_seats_gate'))
    if key == 'finish_gate':
        return gate_value(settings.get('finish_gate'))
    if key.startswith('seat_'):
        _, n, what = key.split('_', 2)
        row = next((s for s in settings.get('seats') or [] if s.get('seat') == int(n)), {})
        return gate_value(row.get('gate')) if what == 'gate' else (row.get('color') or '')
    if key.startswith('flash_'):
        v = flash.get(key[6:])
        return bool(v) if key == 'flash_holeshot' else ('' if v is None else str(v))
    if key.startswith('phase_'):
        p = (settings.get('phases') or {}).get(key[6:]) or {}
        if not p.get('enabled', True):
            return OFF
        return p.get('scene') or BUILTIN
    return ''


def apply_change(settings, key, value):
    """A copy of the settings with one panel field changed (pure; unit-testable)."""
    s = copy.deepcopy(settings)
    if key == 'enabled':
        s['enabled'] = truthy(value)
    elif key == 'all_gate':
        s['all_seats_gate'] = gate_from(value)
    elif key == 'finish_gate':
        s['finish_gate'] = gate_from(value)
    elif key.startswith('seat_'):
        _, n, what = key.split('_', 2)
        row = _seat(s, int(n))
        if what == 'gate':
            row['gate'] = gate_from(value)
        else:
            row['color'] = (value or '').strip() or None
        # A seat with neither its own gate nor colour is simply left out.
        s['seats'] = [r for r in s['seats'] if r.get('gate') or r.get('color')]
    elif key.startswith('flash_'):
        field = key[6:]
        s.setdefault('flash', {})[field] = truthy(value) if field == 'holeshot' else as_int(value)
    elif key.startswith('phase_'):
        phase = key[6:]
        v = (value or '').strip()
        s.setdefault('phases', {})[phase] = {'enabled': v != OFF, 'scene': None if v in (OFF, BUILTIN, '') else v}
    return s


class RaceLightsPanel:
    def __init__(self, rhapi, client):
        self.rhapi = rhapi
        self.client = client
        self.settings = {}
        self.fetched = 0.0
        self.fields = {}
        self.gates = [(NO_GATE, '(none)'), (ALL_DEVICES, 'All devices')]
        self.effects = [('84', 'Solid Pattern Tri')]
        self.scenes = []
        # Changes are applied one after the other, each on the host's answer to the last.
        self._lock = gevent.lock.Semaphore()

    def register(self):
        ui, fields = self.rhapi.ui, self.rhapi.fields
        ui.register_panel(PANEL, 'Lightnet race lights', 'settings')
        ui.register_markdown(PANEL, 'lightnet_rl_help', (
            'Map each timer seat to a Lightnet gate (a group or one device), or give all seats one gate '
            '(the gate over the timing line). On every recorded lap the seat\'s gate flashes in the pilot\'s '
            'colour, then shows again what it showed. Stored in Lightnet; see its README, "Race lights".'))
        self._field('enabled', 'React to laps and race phases', UIFieldType.CHECKBOX,
                    desc='Off: only the Event Actions bound in RotorHazard change lights')
        self._field('all_gate', 'Gate of all seats (timing line)', UIFieldType.SELECT, options=self.gates)
        for n in range(SEATS):
            self._field('seat_{}_gate'.format(n), 'Seat {} gate'.format(n + 1), UIFieldType.SELECT,
                        options=self.gates, desc='(none): the gate of all seats')
            self._field('seat_{}_color'.format(n), 'Seat {} colour'.format(n + 1), UIFieldType.TEXT,
                        placeholder='#rrggbb (empty: RotorHazard\'s seat colour)')
        self._field('flash_effect', 'Lap flash effect', UIFieldType.SELECT, options=self.effects)
        self._field('flash_length_ms', 'Lap flash length (ms)', UIFieldType.BASIC_INT)
        self._field('flash_brightness', 'Lap flash brightness (1-255)', UIFieldType.BASIC_INT)
        self._field('flash_holeshot', 'Flash the holeshot (first pass)', UIFieldType.CHECKBOX)
        self._field('finish_gate', 'Finish gate (winner\'s colour; none: gate of all seats)', UIFieldType.SELECT,
                    options=self.gates)
        for p in PHASES:
            self._field('phase_' + p, 'Phase: ' + PHASE_LABELS[p], UIFieldType.SELECT, options=self._phase_options())

    def _field(self, key, label, ftype, options=None, desc=None, placeholder=None):
        kw = {'desc': desc, 'placeholder': placeholder}
        if options is not None:
            kw['options'] = [UIFieldSelectOption(v, lbl) for v, lbl in options]
        field = UIField('lightnet_rl_' + key, label, ftype, **{k: v for k, v in kw.items() if v is not None})
        self.fields[key] = field
        self.rhapi.fields.register_function_binding(field, self.get, self.set, args={'key': key}, panel=PANEL)

    def _phase_options(self):
        return [(BUILTIN, 'Built-in look'), (OFF, 'Off')] + [(k, 'Scene: ' + lbl) for k, lbl in self.scenes]

    # --- host side ------------------------------------------------------------------

    def refresh(self, lists=None):
        """Re-reads the settings and, given the host's lists, the select choices (in place:
        function bindings cannot be registered twice)."""
        try:
            body = self.client.get('/api/race-lights')
        except HostError as ex:
            logger.debug('Lightnet race lights settings unavailable: %s', ex)
            return
        self.settings = body.get('settings') or {}
        self.fetched = time.monotonic()
        self.effects[:] = [(str(e['value']), e['label']) for e in body.get('effects') or []] or self.effects
        if lists is not None:
            try:
                groups = [('g:{}'.format(g['id']), 'Group: ' + (g.get('name') or str(g['id'])))
                          for g in lists.group_rows()]
                devices = [('d:' + v, 'Device: ' + lbl) for v, lbl in lists.devices()]
                self.gates[:] = [(NO_GATE, '(none)'), (ALL_DEVICES, 'All devices')] + groups + devices
                self.scenes[:] = lists.scenes()
            except Exception as ex:  # host restarting: keep the last choices
                logger.debug('Lightnet lists unavailable for race lights: %s', ex)
        for key, field in self.fields.items():
            if key.endswith('_gate'):
                field.options = [UIFieldSelectOption(v, lbl) for v, lbl in self.gates]
            elif key == 'flash_effect':
                field.options = [UIFieldSelectOption(v, lbl) for v, lbl in self.effects]
            elif key.startswith('phase_'):
                field.options = [UIFieldSelectOption(v, lbl) for v, lbl in self._phase_options()]

    def get(self, args):
        # Settings pages render every field: one host read per render, none during a race.
        if time.monotonic() - self.fetched > FRESH_S and self.rhapi.race.status not in RACE_BUSY:
            self.refresh()
        return _read(self.settings, args['key'])

    def set(self, value, args):
        gevent.spawn(self._put, args['key'], value)

    def _put(self, key, value):
        with self._lock:
            self._put_locked(key, value)

    def _put_locked(self, key, value):
        if not self.settings:
            self.refresh()  # never PUT a partial object built on settings not read yet
        wanted = apply_change(self.settings, key, value)
        try:
            self.settings = self.client.put('/api/race-lights', wanted).get('settings') or wanted
            self.fetched = time.monotonic()
        except HostError as ex:
            self.rhapi.ui.message_notify('Lightnet race lights: {}'.format(ex))
            self.rhapi.ui.broadcast_ui('settings')  # the panel shows the host's value again
