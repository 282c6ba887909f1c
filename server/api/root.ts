// The app router: one sub-router per area. Later areas (tasks, dlq, alerts, …) add a
// line here.
import { createCallerFactory, router } from './trpc';
import { authRouter } from './routers/auth';
import { usersRouter } from './routers/users';
import { tokensRouter } from './routers/tokens';
import { auditRouter } from './routers/audit';
import { tasksRouter } from './routers/tasks';
import { configRouter } from './routers/config';
import { coordinatorsRouter } from './routers/coordinators';
import { dlqRouter } from './routers/dlq';
import { metricsRouter } from './routers/metrics';
import { alertsRouter } from './routers/alerts';
import { webhooksRouter } from './routers/webhooks';
import { executionsRouter } from './routers/executions';
import { taskLoadRouter } from './routers/task-load';

export const appRouter = router({
  auth: authRouter,
  users: usersRouter,
  tokens: tokensRouter,
  audit: auditRouter,
  tasks: tasksRouter,
  config: configRouter,
  coordinators: coordinatorsRouter,
  dlq: dlqRouter,
  metrics: metricsRouter,
  alerts: alertsRouter,
  webhooks: webhooksRouter,
  executions: executionsRouter,
  taskLoad: taskLoadRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side calls without HTTP: server components and tests. */
export const createCaller = createCallerFactory(appRouter);
