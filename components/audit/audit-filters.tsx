// The filter bar: a GET form (next/form navigates client-side), so filters land in the
// URL and work without JavaScript too.
import Form from 'next/form';
import Link from 'next/link';
import { buttonClass } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import type { AuditSearchParams } from './audit-search-params';

function value(sp: AuditSearchParams, key: string): string {
  const v = sp[key];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

const KNOWN_ACTIONS = ['auth.', 'user.', 'user.create', 'user.change_role', 'user.deactivate', 'token.', 'token.create', 'token.revoke', 'config.', 'task.', 'dlq.', 'alert.'];

function FilterField({ label, name, sp, ...rest }: { label: string; name: string; sp: AuditSearchParams } & React.InputHTMLAttributes<HTMLInputElement>) {
  const id = `audit-filter-${name}`;
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={id} className="text-[12px] font-medium text-muted">
        {label}
      </label>
      <Input id={id} name={name} defaultValue={value(sp, name)} {...rest} />
    </div>
  );
}

export function AuditFilters({ sp }: { sp: AuditSearchParams }) {
  return (
    <Form action="/audit" className="grid grid-cols-2 gap-3 border-b border-border p-3 md:grid-cols-3 xl:grid-cols-[repeat(6,minmax(0,1fr))_auto]" aria-label="Filter audit log">
      <FilterField label="Actor" name="actor" sp={sp} placeholder="email, token, cli…" />
      <FilterField label="Action" name="action" sp={sp} placeholder="user.create or user." list="audit-actions" />
      <datalist id="audit-actions">
        {KNOWN_ACTIONS.map((a) => (
          <option key={a} value={a} />
        ))}
      </datalist>
      <FilterField label="Target type" name="targetType" sp={sp} placeholder="user, api_token…" />
      <FilterField label="Target id" name="targetId" sp={sp} />
      <FilterField label="From (UTC)" name="from" sp={sp} type="datetime-local" />
      <FilterField label="To (UTC)" name="to" sp={sp} type="datetime-local" />
      <div className="col-span-full flex items-end gap-2 xl:col-span-1">
        <button type="submit" className={buttonClass('primary')}>
          Apply
        </button>
        <Link href="/audit" className={buttonClass('ghost')}>
          Reset
        </Link>
      </div>
    </Form>
  );
}
