'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { cx } from '@/components/ui/class-names';

const TABS = [
  { href: '/settings/users', label: 'Users' },
  { href: '/settings/tokens', label: 'API tokens' },
  { href: '/settings/webhooks', label: 'Webhooks' },
  { href: '/settings/defaults', label: 'Defaults' },
];

export function SettingsTabs() {
  const pathname = usePathname();
  return (
    <nav aria-label="Settings" className="mb-4 border-b border-border">
      <ul className="-mb-px flex gap-4">
        {TABS.map((t) => {
          const active = pathname === t.href;
          return (
            <li key={t.href}>
              <Link
                href={t.href}
                aria-current={active ? 'page' : undefined}
                className={cx(
                  'inline-block border-b-2 px-0.5 pb-2 text-[13px]',
                  active ? 'border-accent font-medium text-fg' : 'border-transparent text-muted hover:text-fg',
                )}
              >
                {t.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
