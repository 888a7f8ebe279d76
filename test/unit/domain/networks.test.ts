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
