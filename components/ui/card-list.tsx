// A list that is a table on a wide screen and a column of cards on a phone (below md,
// 768 px), so nothing scrolls sideways at 390 px: both are rendered and CSS shows one
// (no layout flash, no client code). The cards carry their own test ids and the table
// keeps its rows', and a hidden copy is out of the accessibility tree, so roles and
// labels find the one on screen. Used by the Executions, Tasks and Dead letters lists.
import type { HTMLAttributes, LiHTMLAttributes, ReactNode } from 'react';
import { cx } from './class-names';

export function CardsOnPhone({ label, testId, cards, children }: { label: string; testId?: string; cards: ReactNode; children: ReactNode }) {
  return (
    <>
      <ul className="divide-y divide-border md:hidden" aria-label={label} data-testid={testId}>
        {cards}
      </ul>
      <div className="hidden md:block">{children}</div>
    </>
  );
}

/** One row as a card: stacked lines of 12 px text. */
export function Card({ className, ...rest }: LiHTMLAttributes<HTMLLIElement>) {
  return <li className={cx('flex min-w-0 flex-col gap-1 px-3 py-2.5 text-[12px]', className)} {...rest} />;
}

/** The card's first line: its name or id on the left, its state on the right. */
export function CardHead({ className, ...rest }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cx('flex min-w-0 items-center justify-between gap-2', className)} {...rest} />;
}

/** Label / value pairs in two columns (a table row's cells, on a card). */
export function CardFields({ fields }: { fields: { label: string; value: ReactNode }[] }) {
  return (
    <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5">
      {fields.map((f) => (
        <div key={f.label} className="contents">
          <dt className="text-subtle">{f.label}</dt>
          <dd className="min-w-0 break-words">{f.value}</dd>
        </div>
      ))}
    </dl>
  );
}
