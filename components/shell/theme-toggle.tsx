'use client';
// Light / dark / system. The choice lives in a cookie (read by the root layout, so the
// first paint is right) and is applied at once via data-theme on <html>.
import { useState } from 'react';
import { THEME_COOKIE, type ThemeChoice } from './theme';

const NEXT: Record<ThemeChoice, ThemeChoice> = { system: 'light', light: 'dark', dark: 'system' };
const LABEL: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };

export function ThemeToggle({ initial }: { initial: ThemeChoice }) {
  const [theme, setTheme] = useState<ThemeChoice>(initial);
  function cycle() {
    const next = NEXT[theme];
    setTheme(next);
    document.cookie = `${THEME_COOKIE}=${next}; Path=/; Max-Age=31536000; SameSite=Lax`;
    if (next === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = next;
  }
  return (
    <button
      type="button"
      onClick={cycle}
      className="flex items-center justify-between gap-2 rounded-md px-2.5 py-1.5 text-[12px] md:w-full text-nav-fg hover:bg-nav-active/60 hover:text-nav-fg-active"
      aria-label={`Theme: ${LABEL[theme]}. Switch to ${LABEL[NEXT[theme]]}`}
    >
      <span>Theme</span>
      <span className="font-medium">{LABEL[theme]}</span>
    </button>
  );
}
