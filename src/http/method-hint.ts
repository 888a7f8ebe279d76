/**
 * The words of a 405: which methods the path does answer and, when the method was meant for
 * a sub-route (`POST /api/groups` → `POST /api/groups/create`), which ones take it — a bare
 * "not allowed" left a client guessing where a group is created.
 */

/** `allowed`: the path's methods; `routes`: every registered path with its methods. */
export function methodNotAllowedText(
  method: string,
  path: string,
  allowed: ReadonlySet<string>,
  routes: ReadonlyMap<string, ReadonlySet<string>>,
): string {
  const answers = [...allowed].sort().join(', ');
  let text = `method ${method} not allowed for ${path}: it answers ${answers}`;
  // Only one static segment deeper: /groups/create, not /groups/:id or /groups/x/y.
  const subs: string[] = [];
  for (const [url, methods] of routes) {
    if (!methods.has(method) || !url.startsWith(`${path}/`)) continue;
    const rest = url.slice(path.length + 1);
    if (rest && !rest.includes('/') && !rest.includes(':') && !rest.includes('*')) subs.push(url);
  }
  if (subs.length === 0) return text;
  const create = subs.find((u) => u.endsWith('/create'));
  const others = subs.filter((u) => u !== create).sort();
  if (create) {
    text += `; to create one: ${method} ${create}`;
    if (others.length) text += ` (${method} also goes to ${others.join(', ')})`;
  } else text += `; ${method} goes to ${others.join(', ')}`;
  return text;
}
