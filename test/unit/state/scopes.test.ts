import { describe, expect, it } from 'vitest';
import { optInRefreshTokens, refreshTokens } from '../../../src/state/scopes.ts';

describe('scope → refresh token mapping', () => {
  it.each([
    [['FULL'], ['groups', 'devices']],
    [
      ['FULL', 'SCENES'],
      ['groups', 'devices'],
    ],
    [['NONE'], []],
    [[], ['groups', 'devices']],
    [['DEVICES'], ['devices']],
    [['DEVICE_SPECIALS'], ['devices']],
    [['DEVICE_MEMBERSHIP'], ['devices', 'groups']],
    [['GROUPS'], ['groups']],
    [
      ['GROUPS', 'DEVICE_MEMBERSHIP', 'SCENES'],
      ['devices', 'groups', 'scenes'],
    ],
    [['NATIVE_PRESETS'], ['native_presets']],
    [['LED_PRESETS'], ['led_presets']],
    [['SCENES'], ['scenes']],
    // Ours, not the contract's: no contract token at all.
    [['CONSOLE'], []],
    [['CONSOLE', 'SCENES'], ['scenes']],
  ] as const)('%j → %j', (scopes, tokens) => {
    expect(refreshTokens(scopes)).toEqual(tokens);
  });
});

describe('opt-in refresh tokens', () => {
  it.each([
    [['CONSOLE'], ['console']],
    [['FULL'], ['console', 'networks']],
    [[], ['console', 'networks']],
    [['NETWORKS'], ['networks']],
    [['SCENES'], []],
    [['NONE'], []],
  ] as const)('%j → %j', (scopes, tokens) => {
    expect(optInRefreshTokens(scopes)).toEqual(tokens);
  });
});
