/** Client-side routes below the mount prefix: '' (devices), 'scenes', 'health', 'log', 'race', 'race-lights', 'integrations', 'help', 'login'. */
import { signal } from '@preact/signals';
import { basePath } from './api.ts';

export type Route =
  'devices' | 'scenes' | 'health' | 'log' | 'race' | 'race-lights' | 'integrations' | 'help' | 'login';

const NAMED: readonly Route[] = [
  'scenes',
  'health',
  'log',
  'race',
  'race-lights',
  'integrations',
  'help',
  'login',
];

function parse(): Route {
  const rest = location.pathname.slice(basePath().length).replace(/^\/+|\/+$/g, '');
  return NAMED.find((r) => r === rest) ?? 'devices';
}

export const route = signal<Route>(parse());

export function navigate(to: Route, replace = false): void {
  const url = `${basePath()}/${to === 'devices' ? '' : to}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  route.value = to;
}

addEventListener('popstate', () => (route.value = parse()));
