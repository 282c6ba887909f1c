export const THEME_COOKIE = 'sluice_theme';
export type ThemeChoice = 'system' | 'light' | 'dark';

export function parseTheme(value: string | undefined): ThemeChoice {
  return value === 'light' || value === 'dark' ? value : 'system';
}
