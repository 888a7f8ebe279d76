/**
 * Device methods: CONFIG options that do something rather than hold a value (§6.5) —
 * the MAC-filter and persistence toggles, the access-point toggle, clear master, reset
 * overrides and reboot. They have no stored value in `specials` (the toggles' state comes
 * back in the node's configByte) and GET_CONFIG never answers for them.
 */
import type { Capability } from './options.ts';

export interface SpecialMethod {
  key: string;
  label: string;
  option: number;
  /** null: every node, whatever its capabilities. */
  capability: Capability | null;
  /** toggle: the write takes 0/1 (or a boolean); action: no value. */
  kind: 'toggle' | 'action';
  /** configByte bit that mirrors a toggle's state (STATUS replies, acknowledged writes). */
  configByteBit?: number;
  /** data0 sent for an action (reboot needs a non-zero byte). */
  data0?: number;
  description: string;
  /** Shown for confirmation before the write. */
  destructive?: { message: string };
}

export const SPECIAL_METHODS: readonly SpecialMethod[] = [
  {
    key: 'mac_filter',
    label: 'MAC filter',
    option: 0x01,
    capability: null,
    kind: 'toggle',
    configByteBit: 0x01,
    description: 'Accept commands only from the learned master (this gateway). Not saved to flash by itself.',
  },
  {
    key: 'master_persist',
    label: 'Remember master across reboots',
    option: 0x03,
    capability: null,
    kind: 'toggle',
    configByteBit: 0x02,
    description: 'Switching it on stores the current master in flash.',
  },
  {
    key: 'wifi_ap',
    label: 'WiFi access point',
    option: 0x04,
    capability: null,
    kind: 'toggle',
    configByteBit: 0x04,
    description: 'Open or close the node’s WiFi access point (used for firmware and preset transfers).',
    destructive: {
      message:
        'Opening the access point exposes the node on WiFi with its default password until it is closed again or the node reboots.',
    },
  },
  {
    key: 'clear_master',
    label: 'Forget master',
    option: 0x02,
    capability: null,
    kind: 'action',
    description: 'The node forgets the gateway it is bound to (RAM only) until the next group assignment.',
    destructive: {
      message:
        'The node forgets its master. With the MAC filter on it ignores this gateway until it is assigned a group again (discovery, group change or force groups).',
    },
  },
  {
    key: 'reset_overrides',
    label: 'Reset to native defaults',
    option: 0x0f,
    capability: 'LED',
    kind: 'action',
    description:
      'Refresh rate, current limit, segments, default brightness and transition back to firmware defaults.',
    destructive: {
      message:
        'Refresh rate (75 fps) and current limit (off) revert to firmware defaults; segment 0 becomes 0..200, segment 1 is removed, default brightness 128, transition 700 ms.\nThe host’s stored LED options are reset to their schema defaults: read them back and import where they differ.',
    },
  },
  {
    key: 'reboot',
    label: 'Reboot',
    option: 0x81,
    capability: null,
    kind: 'action',
    data0: 1,
    description:
      'Restart the node. It usually cannot acknowledge; its boot announcement confirms the restart.',
    destructive: {
      message:
        'The node restarts and is offline for a few seconds; it comes back unbound and is put back into its stored group by the host.',
    },
  },
];

export function methodsFor(caps: readonly Capability[]): SpecialMethod[] {
  return SPECIAL_METHODS.filter((m) => m.capability === null || caps.includes(m.capability));
}

export function findMethod(caps: readonly Capability[], key: string): SpecialMethod | undefined {
  return methodsFor(caps).find((m) => m.key === key);
}

export function findAnyMethod(key: string): SpecialMethod | undefined {
  return SPECIAL_METHODS.find((m) => m.key === key);
}

/** data0 of a method write: 0/1 for toggles (required), the fixed byte for actions. */
export function methodData0(
  m: SpecialMethod,
  value: unknown,
): { ok: true; data0: number } | { ok: false; error: string } {
  if (m.kind === 'action') return { ok: true, data0: m.data0 ?? 0 };
  if (value === true || value === 1 || value === '1' || value === 'true' || value === 'on')
    return { ok: true, data0: 1 };
  if (value === false || value === 0 || value === '0' || value === 'false' || value === 'off')
    return { ok: true, data0: 0 };
  if (value === undefined || value === null)
    return { ok: false, error: `value: is required (0 or 1) for ${m.key}` };
  return { ok: false, error: `value: must be 0/1 or true/false for ${m.key}` };
}
