/**
 * The topic layout (Zigbee2MQTT's conventions, which Home Assistant users know). Pure:
 * names in, topics out. A device's topic is its name when that name is usable as one MQTT
 * topic level and no other device has it; else its address, so two nodes never share a topic.
 *
 *   <base>/bridge/state              online | offline (retained, the last will)
 *   <base>/bridge/event              {type, data}
 *   <base>/bridge/race               the race flag and running scene (retained)
 *   <base>/bridge/request/<name…>    a command; answered on <base>/bridge/response/<name…>
 *   <base>/<device>                  its state (retained JSON); …/set commands it
 *   <base>/<device>/availability     online | offline (retained)
 *   <base>/group/<group>             a group's state; …/set commands it
 */

/** Names a device or group cannot take as its topic: they are the bridge's own levels. */
const RESERVED = new Set(['bridge', 'group', 'set', 'availability']);

/** One topic level an MQTT client can subscribe to without surprises. */
export function usableLevel(name: string): boolean {
  const t = name.trim();
  return (
    t.length > 0 &&
    t === name &&
    t.length <= 64 &&
    !RESERVED.has(t.toLowerCase()) &&
    !t.startsWith('$') &&
    // The separator and the wildcards, and control characters (a NUL is forbidden in a topic).
    // eslint-disable-next-line no-control-regex
    !/[/+#\u0000-\u001f\u007f]/.test(t)
  );
}

export interface Named {
  key: string;
  name: string;
}

/**
 * Each entry's topic level: its name when usable and unique (case-insensitively: Home
 * Assistant users type them), else its key (a device's address, a group's id).
 */
export function topicLevels(entries: readonly Named[]): Map<string, string> {
  const count = new Map<string, number>();
  for (const e of entries) {
    const k = e.name.toLowerCase();
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  const keys = new Set(entries.map((e) => e.key.toLowerCase()));
  const out = new Map<string, string>();
  for (const e of entries) {
    const lower = e.name.toLowerCase();
    // A name that is another entry's key would make two topics alike.
    const own =
      usableLevel(e.name) && count.get(lower) === 1 && (!keys.has(lower) || lower === e.key.toLowerCase());
    out.set(e.key, own ? e.name : e.key);
  }
  return out;
}

export class Topics {
  constructor(readonly base: string) {}
  get bridgeState(): string {
    return `${this.base}/bridge/state`;
  }
  get bridgeEvent(): string {
    return `${this.base}/bridge/event`;
  }
  get bridgeRace(): string {
    return `${this.base}/bridge/race`;
  }
  get requestPrefix(): string {
    return `${this.base}/bridge/request/`;
  }
  response(name: string): string {
    return `${this.base}/bridge/response/${name}`;
  }
  device(level: string): string {
    return `${this.base}/${level}`;
  }
  availability(level: string): string {
    return `${this.base}/${level}/availability`;
  }
  group(level: string): string {
    return `${this.base}/group/${level}`;
  }
  /** What the bridge subscribes to: the sets and the requests. */
  subscriptions(): string[] {
    return [`${this.base}/+/set`, `${this.base}/group/+/set`, `${this.base}/bridge/request/#`];
  }
}

/** What an incoming topic aims at, or null: not ours. */
export type Incoming =
  | { kind: 'device_set'; level: string }
  | { kind: 'group_set'; level: string }
  | { kind: 'request'; name: string };

export function parseIncoming(t: Topics, topic: string): Incoming | null {
  if (topic.startsWith(t.requestPrefix)) {
    const name = topic.slice(t.requestPrefix.length);
    return name.length > 0 ? { kind: 'request', name } : null;
  }
  const pre = `${t.base}/`;
  if (!topic.startsWith(pre) || !topic.endsWith('/set')) return null;
  const parts = topic.slice(pre.length, -'/set'.length).split('/');
  if (parts.length === 1 && parts[0] && parts[0] !== 'bridge') return { kind: 'device_set', level: parts[0] };
  if (parts.length === 2 && parts[0] === 'group' && parts[1]) return { kind: 'group_set', level: parts[1] };
  return null;
}
