// The console's sections, in navigation order.
export interface NavItem {
  href: string;
  label: string;
  icon: 'overview' | 'tasks' | 'executions' | 'coordinators' | 'dead-letters' | 'alerts' | 'audit' | 'settings';
}

export const NAV_ITEMS: NavItem[] = [
  { href: '/', label: 'Overview', icon: 'overview' },
  { href: '/tasks', label: 'Tasks', icon: 'tasks' },
  { href: '/executions', label: 'Executions', icon: 'executions' },
  { href: '/coordinators', label: 'Coordinators', icon: 'coordinators' },
  { href: '/dead-letters', label: 'Dead letters', icon: 'dead-letters' },
  { href: '/alerts', label: 'Alerts', icon: 'alerts' },
  { href: '/audit', label: 'Audit', icon: 'audit' },
  { href: '/settings', label: 'Settings', icon: 'settings' },
];

export function isActive(pathname: string, href: string): boolean {
  return href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(href + '/');
}
