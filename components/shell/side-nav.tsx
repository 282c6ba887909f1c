'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { cx } from '@/components/ui/class-names';
import { NAV_ITEMS, isActive } from './nav-items';
import { NavIcon } from './nav-icon';

export function SideNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="px-2 py-1.5 md:flex-1 md:py-3">
      <ul className="flex flex-col gap-0.5">
        {NAV_ITEMS.map((item) => {
          const active = isActive(pathname, item.href);
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={active ? 'page' : undefined}
                className={cx(
                  'flex items-center gap-2.5 rounded-md px-2.5 py-1.5 text-[13px] whitespace-nowrap transition-colors',
                  active ? 'bg-nav-active font-medium text-nav-fg-active' : 'text-nav-fg hover:bg-nav-active/60 hover:text-nav-fg-active',
                )}
              >
                <NavIcon name={item.icon} />
                {item.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
