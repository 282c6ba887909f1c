import type { NavItem } from './nav-items';

// 16px stroke icons, decorative (the link text names the section).
const PATHS: Record<NavItem['icon'], string> = {
  overview: 'M2.5 2.5h4.5v5H2.5zM9 2.5h4.5v3H9zM9 7.5h4.5v6H9zM2.5 9.5h4.5v4H2.5z',
  tasks: 'M5.5 4h8M5.5 8h8M5.5 12h8M2.5 4h.01M2.5 8h.01M2.5 12h.01',
  executions: 'M2 4h2.5M2 8h2.5M2 12h2.5M6.5 4h7.5M6.5 8h5M6.5 12h6.5',
  coordinators: 'M2.5 3h11v4h-11zM2.5 9h11v4h-11zM5 5h.01M5 11h.01',
  'dead-letters': 'M2 4.5h12v8H2zM2 4.5l6 4.5 6-4.5',
  alerts: 'M8 2.5l6 10.5H2zM8 7v2.5M8 11.5h.01',
  audit: 'M4 2h6l2.5 2.5V14H4zM6 7h4.5M6 9.5h4.5M6 12h2.5',
  settings: 'M8 5.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5zM8 1.5v2M8 12.5v2M1.5 8h2M12.5 8h2M3.4 3.4l1.4 1.4M11.2 11.2l1.4 1.4M3.4 12.6l1.4-1.4M11.2 4.8l1.4-1.4',
};

export function NavIcon({ name }: { name: NavItem['icon'] }) {
  return (
    <svg aria-hidden="true" width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round">
      <path d={PATHS[name]} />
    </svg>
  );
}
