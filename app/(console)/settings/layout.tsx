import type { ReactNode } from 'react';
import { PageHeader } from '@/components/ui/page-header';
import { SettingsTabs } from '@/components/shell/settings-tabs';

export default function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <PageHeader title="Settings" />
      <SettingsTabs />
      {children}
    </>
  );
}
