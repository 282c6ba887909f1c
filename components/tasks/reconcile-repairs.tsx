'use client';
// The reconciler's recent repairs of one task's counters (reconcile_log): each row is a
// counter the engine kept wrong until the reconciler recomputed it from the tables — an
// engine bug signal; repeated repairs raise the "Reconciler repairing drift" alert.
import type { TaskPartitions } from '@/server/presenters/task-metrics';
import { Panel } from '@/components/ui/panel';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';

export function ReconcileRepairs({ repairs }: { repairs: TaskPartitions['reconcileRepairs'] }) {
  if (repairs.length === 0) return null;
  return (
    <Panel title={`Reconciler repairs (${repairs.length} latest)`} labelledBy="task-reconcile-repairs">
      <Table aria-label="Reconciler repairs" data-testid="reconcile-repairs">
        <thead>
          <tr>
            <Th>When (UTC)</Th>
            <Th>Counter</Th>
            <Th>Where</Th>
            <Th className="text-right">Recorded</Th>
            <Th className="text-right">Actual</Th>
          </tr>
        </thead>
        <tbody>
          {repairs.map((r, i) => (
            <Tr key={i}>
              <Td>
                <Timestamp date={r.at} />
              </Td>
              <Td className="font-mono">{r.counter}</Td>
              <Td className="font-mono text-[12px]">
                {r.partition !== null ? `partition ${r.partition}` : r.groupName !== null ? `${r.groupName}=${r.groupKey}` : 'task'}
              </Td>
              <Td className="text-right font-mono tabular-nums">{r.recorded}</Td>
              <Td className="text-right font-mono tabular-nums">{r.actual}</Td>
            </Tr>
          ))}
        </tbody>
      </Table>
    </Panel>
  );
}
