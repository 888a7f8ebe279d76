import { describe, expect, it } from 'vitest';
import {
  aggregateMaster,
  aggregateReadiness,
  sumStats,
  targetNetworks,
  type RouteFacts,
} from '../../../src/gateway/radio/routing.ts';
import type { GatewayReadiness, MasterSnapshot } from '../../../src/gateway/types.ts';

const facts: RouteFacts = {
  networkOf: (a) => ({ AAAAAA: 1, BBBBBB: 2 })[a] ?? null,
  networksOfGroup: (g) => ({ 1: [1, 2], 2: [2], 3: [3] })[g] ?? [],
};
const all = [1, 2];

describe('routing decisions', () => {
  it('a-unicast-goes-to-the-devices-network-only', () => {
    expect(targetNetworks('BBBBBB', { op: 'STATUS', groupId: 2 }, all, facts)).toEqual([2]);
    expect(targetNetworks('AAAAAA', { op: 'CONFIG', option: 1, data: [0, 0, 0, 0] }, all, facts)).toEqual([
      1,
    ]);
  });

  it('an-unknown-node-goes-where-it-was-last-heard-else-nowhere', () => {
    expect(targetNetworks('CCCCCC', { op: 'SET_GROUP', groupId: 1 }, all, facts, () => 2)).toEqual([2]);
    expect(targetNetworks('CCCCCC', { op: 'SET_GROUP', groupId: 1 }, all, facts)).toEqual([]);
    // A network whose gateway is not attached is not a target.
    expect(targetNetworks('BBBBBB', { op: 'STATUS', groupId: 2 }, [1], facts)).toEqual([]);
  });

  it('a-group-send-goes-to-every-network-with-members', () => {
    const preset = (groupId: number) =>
      ({ op: 'PRESET', groupId, flags: 1, presetId: 1, brightness: 9 }) as const;
    expect(targetNetworks('FFFFFF', preset(1), all, facts)).toEqual([1, 2]);
    expect(targetNetworks('FFFFFF', preset(2), all, facts)).toEqual([2]);
    // No member on an attached network (or none at all): every network, as one network always did.
    expect(targetNetworks('FFFFFF', preset(3), all, facts)).toEqual([1, 2]);
    expect(targetNetworks('FFFFFF', preset(9), all, facts)).toEqual([1, 2]);
  });

  it('group-255-and-frames-without-a-group-go-everywhere', () => {
    expect(targetNetworks('FFFFFF', { op: 'STATUS', groupId: 255 }, all, facts)).toEqual([1, 2]);
    expect(targetNetworks('FFFFFF', { op: 'SYNC', ts24: 1, brightness: 0 }, all, facts)).toEqual([1, 2]);
    expect(targetNetworks('FFFFFF', { op: 'INDICATE', type: 1, durationSec: 1 }, all, facts)).toEqual([1, 2]);
  });
});

const ready = (over: Partial<GatewayReadiness> = {}): GatewayReadiness => ({
  ready: true,
  last_error: null,
  failure_count: 0,
  transport: 'sim',
  port: 'sim:0',
  gateway_mac: '48:CA:43:10:20:30',
  next_retry_in_s: null,
  ...over,
});
const master = (
  over: Partial<MasterSnapshot & { ready: boolean }> = {},
): MasterSnapshot & { ready: boolean } => ({
  state: 'IDLE',
  state_byte: 0,
  state_metadata_ms: 0,
  last_event: null,
  last_event_ts: 0,
  last_error: null,
  ready: true,
  ...over,
});

describe('aggregate snapshots', () => {
  it('ready-only-when-every-gateway-is-and-the-problem-names-its-network', () => {
    const ok = aggregateReadiness([
      { networkId: 1, name: 'Track A', value: ready() },
      { networkId: 2, name: 'Track B', value: ready({ port: 'sim:1', failure_count: 2 }) },
    ]);
    expect(ok).toMatchObject({ ready: true, last_error: null, failure_count: 2, port: 'sim:0' });
    expect(ok.networks_ready).toBe(2);
    expect(ok.gateways.map((g) => [g.network_id, g.network, g.port])).toEqual([
      [1, 'Track A', 'sim:0'],
      [2, 'Track B', 'sim:1'],
    ]);
    const down = aggregateReadiness([
      { networkId: 1, name: 'Track A', value: ready({ next_retry_in_s: 8 }) },
      {
        networkId: 2,
        name: 'Track B',
        value: ready({ ready: false, last_error: 'connect failed: x', next_retry_in_s: 3 }),
      },
    ]);
    expect(down).toMatchObject({
      ready: false,
      last_error: 'Track B: connect failed: x',
      next_retry_in_s: 3,
      networks_ready: 1,
      networks_total: 2,
    });
  });

  it('master-state-is-the-worst-and-a-disconnected-gateway-counts-as-unknown', () => {
    const m = aggregateMaster([
      { networkId: 1, name: 'A', value: master({ state: 'IDLE', last_event: 'X', last_event_ts: 5 }) },
      {
        networkId: 2,
        name: 'B',
        value: master({ state: 'TX', state_byte: 1, last_event: 'Y', last_event_ts: 9 }),
      },
    ]);
    expect(m).toMatchObject({ state: 'TX', state_byte: 1, last_event: 'Y', last_event_ts: 9 });
    expect(m.networks.map((x) => [x.network_id, x.state])).toEqual([
      [1, 'IDLE'],
      [2, 'TX'],
    ]);
    const gone = aggregateMaster([
      { networkId: 1, name: 'A', value: master() },
      { networkId: 2, name: 'B', value: master({ ready: false, last_error: 'USB gone' }) },
    ]);
    expect(gone).toMatchObject({ state: 'UNKNOWN', last_error: 'B: USB gone' });
  });

  it('stats-are-summed', () => {
    const s = {
      framesSent: 1,
      framesRejected: 2,
      framesTimedOut: 3,
      replies: 4,
      airtimeMs: 5.5,
      queueDepth: 6,
    };
    expect(sumStats([s, s])).toEqual({
      framesSent: 2,
      framesRejected: 4,
      framesTimedOut: 6,
      replies: 8,
      airtimeMs: 11,
      queueDepth: 12,
    });
  });
});
