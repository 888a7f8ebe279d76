/**
 * State-change scopes (every persisted mutation carries at least one) and their
 * mapping to the SSE `refresh` tokens clients act on (contract "Events"). CONSOLE (the
 * shared console settings) is ours, not the contract's: it yields no contract token,
 * only the opt-in token `console` for streams opened with `?console=1` (http/sse.ts).
 */
export const SCOPES = [
  'FULL',
  'NONE',
  'DEVICES',
  'DEVICE_MEMBERSHIP',
  'DEVICE_SPECIALS',
  'GROUPS',
  'NATIVE_PRESETS',
  'LED_PRESETS',
  'SCENES',
  'CONSOLE',
  // The network records (gateway binding, names, radio settings): no contract token.
  'NETWORKS',
] as const;
export type Scope = (typeof SCOPES)[number];

export type RefreshToken = 'groups' | 'devices' | 'native_presets' | 'led_presets' | 'scenes';

/** Ordered, de-duplicated refresh tokens for a set of scopes; NONE alone yields []. */
export function refreshTokens(scopes: readonly Scope[]): RefreshToken[] {
  const set = new Set<Scope>(scopes.length === 0 ? ['FULL'] : scopes);
  if (set.has('FULL')) return ['groups', 'devices'];
  const out: RefreshToken[] = [];
  if (set.has('DEVICES') || set.has('DEVICE_MEMBERSHIP') || set.has('DEVICE_SPECIALS')) out.push('devices');
  if (set.has('GROUPS') || set.has('DEVICE_MEMBERSHIP')) out.push('groups');
  if (set.has('NATIVE_PRESETS')) out.push('native_presets');
  if (set.has('LED_PRESETS')) out.push('led_presets');
  if (set.has('SCENES')) out.push('scenes');
  return out;
}

/** Refresh tokens beyond the contract, sent only to streams that asked for them. */
export type OptInRefreshToken = 'console' | 'networks';

/**
 * The opt-in tokens for a set of scopes: `console` for CONSOLE, `networks` for NETWORKS,
 * both for FULL (reload, restore).
 */
export function optInRefreshTokens(scopes: readonly Scope[]): OptInRefreshToken[] {
  const full = scopes.length === 0 || scopes.includes('FULL');
  const out: OptInRefreshToken[] = [];
  if (full || scopes.includes('CONSOLE')) out.push('console');
  if (full || scopes.includes('NETWORKS')) out.push('networks');
  return out;
}
