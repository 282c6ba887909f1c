// Alerts: viewers list and inspect; operators acknowledge, silence, un-silence and resolve (the
// services audit each action in its transaction).
import { z } from 'zod';
import { alertDetailInput, alertListInput, getAlert, listAlerts } from '../../../presenters/alerts';
import {
  acknowledgeAlertById,
  acknowledgeAlertInput,
  alertIdInput,
  resolveAlertById,
  silenceAlertById,
  silenceAlertInput,
  unsilenceAlertById,
} from '../../../services/alerts';
import type { AlertRow } from '../../../db/alert-store';
import { userActor } from '../../../services/auth';
import { operatorProcedure, router, viewerProcedure } from '../../trpc';

const actionOutput = z.object({
  id: z.number(),
  status: z.enum(['pending', 'firing', 'acknowledged', 'resolved']),
  acknowledgedBy: z.string().nullable(),
  silencedUntil: z.date().nullable(),
  resolvedBy: z.string().nullable(),
});

const view = (r: AlertRow) => ({ id: r.id, status: r.status, acknowledgedBy: r.acknowledged_by, silencedUntil: r.silenced_until, resolvedBy: r.resolved_by });

export const alertsRouter = router({
  list: viewerProcedure.input(alertListInput).query(({ ctx, input }) => listAlerts(ctx.db, input)),
  get: viewerProcedure.input(alertDetailInput).query(({ ctx, input }) => getAlert(ctx.db, input)),

  acknowledge: operatorProcedure
    .input(acknowledgeAlertInput)
    .output(actionOutput)
    .mutation(async ({ ctx, input }) => view(await acknowledgeAlertById(ctx.db, userActor(ctx.user), input))),
  silence: operatorProcedure
    .input(silenceAlertInput)
    .output(actionOutput)
    .mutation(async ({ ctx, input }) => view(await silenceAlertById(ctx.db, userActor(ctx.user), input))),
  unsilence: operatorProcedure
    .input(alertIdInput)
    .output(actionOutput)
    .mutation(async ({ ctx, input }) => view(await unsilenceAlertById(ctx.db, userActor(ctx.user), input))),
  resolve: operatorProcedure
    .input(alertIdInput)
    .output(actionOutput)
    .mutation(async ({ ctx, input }) => view(await resolveAlertById(ctx.db, userActor(ctx.user), input))),
});
