import { describe, expect, it } from 'vitest';
import {
  bindGateway,
  loadNetworks,
  newNetwork,
  nextNetworkId,
  normalizeGatewayMac,
} from '../../../src/domain/networks.ts';

describe('networks (domain)', () => {
  it('nothing-stored-gives-network-1', () => {
    expect(loadNetworks(undefined).networks).toEqual([newNetwork(1)]);
    expect(loadNetworks([]).networks).toEqual([newNetwork(1)]);
    expect(loadNetworks('x').networks).toEqual([newNetwork(1)]);
  });

  it('a-migration-in-progress-is-kept-and-a-broken-one-is-cleared-with-a-note', () => {
    const from = {
      freqHz: 867_700_000,
      bwKhzX10: 1250,
      sf: 7,
      crDen: 5,
      syncWord: 18,
      txPowerDbm: 14,
      preamble: 8,
    };
    const to = { ...from, freqHz: 868_200_000 };
    const ok = loadNetworks([{ id: 1, name: 'A', migration: { from, to, started_ts: 5 } }]);
    expect(ok.networks[0]!.migration).toEqual({ from, to, started_ts: 5 });
    expect(ok.notes).toEqual([]);
    const bad = loadNetworks([
      { id: 1, name: 'A', migration: { from, to: { ...to, sf: 99 }, started_ts: 5 } },
    ]);
    expect(bad.networks[0]!.migration).toBeNull();
    expect(bad.notes.join()).toContain('networks.0.migration');
  });

  it('gateway-macs-are-normalized-to-12-upper-hex', () => {
    expect(normalizeGatewayMac('aa:bb:cc:dd:ee:ff')).toBe('AABBCCDDEEFF');
    expect(normalizeGatewayMac('AABBCCDDEEF')).toBeNull();
    expect(normalizeGatewayMac(12)).toBeNull();
  });

  it('ids-are-never-reused', () => {
    expect(nextNetworkId([newNetwork(1), newNetwork(4)])).toBe(5);
    expect(nextNetworkId([newNetwork(1)], 7)).toBe(7);
    expect(nextNetworkId([])).toBe(1);
  });

  describe('binding a gateway that identified itself', () => {
    const a = 'AABBCCDDEE01';
    const b = 'AABBCCDDEE02';
    it('a-migrated-install-binds-network-1-to-the-only-gateway', () => {
      expect(bindGateway([newNetwork(1)], a, 1)).toEqual({ kind: 'adopt', networkId: 1 });
    });
    it('the-network-naming-the-mac-wins-whatever-else-is-attached', () => {
      const nets = [newNetwork(1, b), newNetwork(2, a)];
      expect(bindGateway(nets, a, 2)).toEqual({ kind: 'bound', networkId: 2 });
      expect(bindGateway(nets, a, 1)).toEqual({ kind: 'bound', networkId: 2 });
    });
    it('a-free-network-is-never-taken-while-two-gateways-are-attached', () => {
      expect(bindGateway([newNetwork(1)], a, 2)).toEqual({ kind: 'unassigned' });
    });
    it('a-new-gateway-never-takes-over-a-bound-network', () => {
      expect(bindGateway([newNetwork(1, b)], a, 1)).toEqual({ kind: 'unassigned' });
    });
    it('two-free-networks-need-the-operator', () => {
      expect(bindGateway([newNetwork(1), newNetwork(2)], a, 1)).toEqual({ kind: 'unassigned' });
    });
  });
});
