/** A link in the menu band to one client-side page (no reload). */
import { navigate, route, type Route } from '../router.ts';

export function PageLink({ to, label, title }: { to: Route; label: string; title?: string }) {
  const active = route.value === to;
  return (
    <a
      href={`./${to === 'devices' ? '' : to}`}
      class={active ? 'active' : ''}
      aria-current={active ? 'page' : undefined}
      title={title}
      onClick={(e) => {
        e.preventDefault();
        navigate(to);
      }}
    >
      {label}
    </a>
  );
}
