/** Client-side routes below the mount prefix: '' (devices), 'scenes', 'health', 'log', 'login'. */
import { signal } from '@preact/signals';
import { basePath } from './api.ts';

export type Route = 'devices' | 'scenes' | 'health' | 'log' | 'login';

function parse(): Route {
  const rest = location.pathname.slice(basePath().length).replace(/^\/+|\/+$/g, '');
  if (rest === 'scenes') return 'scenes';
  if (rest === 'login') return 'login';
  if (rest === 'health') return 'health';
  if (rest === 'log') return 'log';
  return 'devices';
}

export const route = signal<Route>(parse());

export function navigate(to: Route, replace = false): void {
  const url = `${basePath()}/${to === 'devices' ? '' : to}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  route.value = to;
}

addEventListener('popstate', () => (route.value = parse()));
