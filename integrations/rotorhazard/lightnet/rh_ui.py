"""RotorHazard-side UI: Event Actions (ActionEffects), the Run-page and Settings panels and
the plugin's options. Select lists come from the Lightnet host; when the host reports a
`refresh` scope, only the effects and panels depending on it are registered again, and only
if their choices actually changed (every registration is a "Redefining" line and every
page broadcast a full re-render for all of RotorHazard's clients).
"""
import logging

from EventActions import ActionEffect
from RHUI import UIField, UIFieldSelectOption, UIFieldType

from .laps import PHASE_LABELS, PHASES

logger = logging.getLogger(__name__)

NONE_VALUE = ''
ALL_GROUPS = '255'
DEVICE_FUNCTIONS = [('startblock_control', 'Start blocks: show current heat'),
                    ('led_reset_overrides', 'Reset LED overrides to native defaults')]

# Which RotorHazard elements depend on which host refresh token.
SCOPE_EFFECTS = {
    'scenes': ('scene', 'arm', 'quick'),
    'native_presets': ('preset',),
    'groups': ('preset', 'sb_group'),
    'devices': ('sb_device', 'device', 'status'),
}


def _select(name, label, options, desc=None):
    opts = options or [(NONE_VALUE, '(none available)')]
    return UIField(name, label, UIFieldType.SELECT, value=opts[0][0], desc=desc,
                   options=[UIFieldSelectOption(v, lbl) for v, lbl in opts])


class Lists:
    """The host's lists as RotorHazard select options: [(value, label)]."""

    def __init__(self, client):
        self.client = client
        self._memo = {}

    def begin_pass(self):
        """Each list is fetched (and parsed) at most once per refresh pass."""
        self._memo = {}

    def _get(self, path, key):
        if path not in self._memo:
            self._memo[path] = self.client.get(path).get(key, [])
        return self._memo[path]

    def scenes(self):
        return [(s['key'], s.get('label') or s['key']) for s in self._get('/api/scenes', 'scenes')]

    def presets(self):
        return [(p['key'], p.get('label') or p['key']) for p in self._get('/api/native-presets', 'presets')]

    def group_rows(self):
        return self._get('/api/groups', 'groups')

    def groups(self):
        rows = self.group_rows()
        return [(ALL_GROUPS, 'All devices (broadcast)')] + [(str(g['id']), g.get('name') or str(g['id'])) for g in rows]

    def devices(self, startblocks_only=False):
        out = []
        for d in self._get('/api/devices', 'devices'):
            if startblocks_only and 'STARTBLOCK' not in (d.get('dev_type_caps') or []):
                continue
            out.append((d['addr'], '{} ({})'.format(d.get('name') or d['addr'], d['addr'])))
        return out


class RhUi:
    def __init__(self, rhapi, bridge):
        self.rhapi = rhapi
        self.bridge = bridge
        self.lists = Lists(bridge.client)
        self.register_fn = None
        self._choices = {}
        self._quick = []

    # --- Event Actions -------------------------------------------------------------

    def on_actions_initialize(self, args):
        self.register_fn = args.get('register_fn')
        self._register_race_lights()
        self.refresh(['scenes', 'native_presets', 'groups', 'devices'], force=True)

    def _register_race_lights(self):
        """Race lights as Event Actions: they run even when Lightnet's automatic race lights
        are switched off (its race lights settings), for operators who bind events here."""
        if not self.register_fn:
            return
        rl = self.bridge.race_lights
        self.register_fn(ActionEffect('Lightnet: flash the lap\'s gate (bind to Lap Recorded)', rl.effect_lap_flash,
                                      [], name='lightnet_lap_flash'))
        self.register_fn(ActionEffect('Lightnet: race phase lights', rl.effect_phase, [
            _select('lightnet_phase', 'Phase', [(p, PHASE_LABELS[p]) for p in PHASES],
                    'The phase look from Lightnet\'s race lights settings (its scene or the built-in look)'),
        ], name='lightnet_race_phase'))
        self.register_fn(ActionEffect('Lightnet: race flag', self.bridge.effect_flag, [
            _select('lightnet_flag', 'Flag', [('red', 'Red (holds the field, race looks wait)'),
                                              ('yellow', 'Yellow'), ('green', 'Green'),
                                              ('clear', 'Clear')],
                    'The flag\'s look over the whole field (Lightnet: flags)'),
        ], name='lightnet_race_flag'))

    def _fetch(self, what):
        """Choices per element, or None when the host cannot be asked right now."""
        try:
            if what in ('scene', 'arm', 'quick'):
                return self.lists.scenes()
            if what == 'preset':
                return (self.lists.groups(), self.lists.presets())
            if what == 'sb_group':
                return self.lists.groups()
            if what == 'sb_device':
                return self.lists.devices(startblocks_only=True)
            if what == 'device':
                return self.lists.devices()
        except Exception as ex:  # host down or restarting: keep the last lists
            logger.debug('Lightnet lists unavailable (%s): %s', what, ex)
        return None

    def refresh(self, tokens, force=False):
        """Re-registers the elements that depend on these refresh tokens."""
        wanted = []
        for t in tokens:
            for el in SCOPE_EFFECTS.get(t, ()):
                if el not in wanted:
                    wanted.append(el)
        self.lists.begin_pass()
        for el in wanted:
            if el == 'status':
                self.bridge.status_dirty()
                continue
            choices = self._fetch(el)
            if choices is None and not force:
                continue
            if not force and choices == self._choices.get(el):
                continue
            self._choices[el] = choices
            if el == 'quick':
                self._register_quick(choices or [])
            else:
                self._register_effect(el, choices)

    def _register_effect(self, el, choices):
        if not self.register_fn:
            return
        b = self.bridge
        if el == 'scene':
            effect = ActionEffect('Lightnet: run scene', b.effect_run_scene,
                                  [_select('lightnet_scene', 'Scene', choices)], name='lightnet_scene')
        elif el == 'arm':
            effect = ActionEffect('Lightnet: arm scene, sync at race start (bind to Race Stage)',
                                  b.effect_arm_start,
                                  [_select('lightnet_arm_scene', 'Arm scene', choices,
                                           'Its presets should use "arm on sync"; the gates fire at the start tone')],
                                  name='lightnet_arm_start')
        elif el == 'preset':
            groups, presets = choices if choices else (None, None)
            effect = ActionEffect('Lightnet: native preset to group', b.effect_preset_group, [
                _select('lightnet_group', 'Group', groups),
                _select('lightnet_preset', 'Native preset', presets),
                UIField('lightnet_brightness', 'Brightness (empty: the preset\'s)', UIFieldType.TEXT, value=''),
            ], name='lightnet_preset')
        elif el == 'sb_group':
            effect = ActionEffect('Lightnet: start blocks by group (current heat)', b.effect_startblock_group,
                                  [_select('lightnet_sb_group', 'Group', choices)], name='lightnet_startblock_group')
        elif el == 'sb_device':
            effect = ActionEffect('Lightnet: start block by device (current heat)', b.effect_startblock_device,
                                  [_select('lightnet_sb_device', 'Start block', choices)],
                                  name='lightnet_startblock_device')
        elif el == 'device':
            effect = ActionEffect('Lightnet: device action', b.effect_device_action, [
                _select('lightnet_device', 'Device', choices),
                _select('lightnet_function', 'Action', DEVICE_FUNCTIONS),
            ], name='lightnet_device_action')
        else:
            return
        self.register_fn(effect)
        logger.debug('Lightnet: registered Event Action %s', effect.name)

    # --- Panels and options ----------------------------------------------------------

    def register_static(self):
        ui, fields = self.rhapi.ui, self.rhapi.fields
        ui.register_panel('lightnet_settings', 'Lightnet', 'settings')
        ui.register_panel('lightnet_run', 'Lightnet', 'run')
        opts = [
            UIField('lightnet_mode', 'Host', UIFieldType.SELECT, value='managed',
                    options=[UIFieldSelectOption('managed', 'Start and supervise Lightnet here'),
                             UIFieldSelectOption('attach', 'Attach to a running Lightnet (URL below)')],
                    desc='Takes effect at the next RotorHazard start'),
            UIField('lightnet_url', 'Lightnet URL (attach mode)', UIFieldType.TEXT,
                    value='http://127.0.0.1:5077/lightnet'),
            UIField('lightnet_password', 'Lightnet password (attach mode)', UIFieldType.PASSWORD, value=''),
            UIField('lightnet_node', 'Node binary (empty: node on PATH)', UIFieldType.TEXT, value=''),
            UIField('lightnet_host_dir', 'Lightnet folder (empty: the one holding this plugin)', UIFieldType.TEXT,
                    value=''),
            UIField('lightnet_gateway', 'Gateway (auto, sim, serial:<path>, tcp:<host>:<port>)', UIFieldType.TEXT,
                    value='', placeholder='auto'),
            UIField('lightnet_quick_scenes', 'Run-page scene buttons (scene keys, comma separated; empty: all)',
                    UIFieldType.TEXT, value=''),
        ]
        for f in opts:
            fields.register_option(f, 'lightnet_settings')
        ui.register_quickbutton('lightnet_settings', 'lightnet_restart', 'Restart Lightnet host',
                                self.bridge.quick_restart)
        ui.register_quickbutton('lightnet_run', 'lightnet_heat', 'Start blocks: current heat',
                                self.bridge.quick_startblocks)
        ui.register_quickbutton('lightnet_run', 'lightnet_stop', 'Stop scene', self.bridge.quick_stop)
        ui.register_quickbutton('lightnet_run', 'lightnet_flag_red', 'RED FLAG', self.bridge.quick_flag,
                                {'flag': 'red'})
        ui.register_quickbutton('lightnet_run', 'lightnet_flag_clear', 'Clear flag', self.bridge.quick_flag,
                                {'flag': 'clear'})
        self.set_status('Lightnet is starting...')

    def set_status(self, markdown):
        self.rhapi.ui.register_markdown('lightnet_run', 'lightnet_status', markdown)
        self.rhapi.ui.register_markdown('lightnet_settings', 'lightnet_status_settings', markdown)

    def _register_quick(self, scenes):
        wanted = [k.strip() for k in (self.rhapi.db.option('lightnet_quick_scenes', '') or '').split(',') if k.strip()]
        chosen = [s for s in scenes if not wanted or s[0] in wanted][:8]
        for i, (key, label) in enumerate(chosen):
            self.rhapi.ui.register_quickbutton('lightnet_run', 'lightnet_quick_{}'.format(i), label,
                                               self.bridge.quick_scene, {'scene': key})
        # Buttons of scenes that went away point at nothing: keep their slots harmless.
        for i in range(len(chosen), len(self._quick)):
            self.rhapi.ui.register_quickbutton('lightnet_run', 'lightnet_quick_{}'.format(i), '-',
                                               self.bridge.quick_scene, {'scene': ''})
        self._quick = chosen
        self.bridge.broadcast('run')
