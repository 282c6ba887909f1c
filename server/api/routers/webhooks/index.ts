// Settings → Webhooks: operators see targets and the delivery log; admins change
// targets (each change audited by the service; secrets never returned).
import { createWebhook, createWebhookInput, deleteWebhook, sendTestWebhook, updateWebhook, updateWebhookInput, webhookIdInput } from '../../../services/webhooks';
import { deliveryLogInput, listDeliveries, listWebhooks } from '../../../presenters/webhooks';
import { userActor } from '../../../services/auth';
import { adminProcedure, operatorProcedure, router } from '../../trpc';

export const webhooksRouter = router({
  list: operatorProcedure.query(({ ctx }) => listWebhooks(ctx.db)),
  deliveries: operatorProcedure.input(deliveryLogInput).query(({ ctx, input }) => listDeliveries(ctx.db, input)),
  create: adminProcedure.input(createWebhookInput).mutation(({ ctx, input }) => createWebhook(ctx.db, userActor(ctx.user), input)),
  update: adminProcedure.input(updateWebhookInput).mutation(({ ctx, input }) => updateWebhook(ctx.db, userActor(ctx.user), input)),
  delete: adminProcedure.input(webhookIdInput).mutation(({ ctx, input }) => deleteWebhook(ctx.db, userActor(ctx.user), input)),
  test: adminProcedure.input(webhookIdInput).mutation(({ ctx, input }) => sendTestWebhook(ctx.db, userActor(ctx.user), input)),
});
