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
import { deadLettersRouter } from './routers/dead-letters';
import { metricsRouter } from './routers/metrics';
import { alertsRouter } from './routers/alerts';
import { webhooksRouter } from './routers/webhooks';
import { taskLoadRouter } from './routers/task-load';
import { executionsRouter } from './routers/executions';
import { executionActionsRouter } from './routers/execution-actions';
import { defaultsRouter } from './routers/defaults';

export const appRouter = router({
  auth: authRouter,
  users: usersRouter,
  tokens: tokensRouter,
  audit: auditRouter,
  tasks: tasksRouter,
  config: configRouter,
  coordinators: coordinatorsRouter,
  deadLetters: deadLettersRouter,
  metrics: metricsRouter,
  alerts: alertsRouter,
  webhooks: webhooksRouter,
  taskLoad: taskLoadRouter,
  executions: executionsRouter,
  executionActions: executionActionsRouter,
  defaults: defaultsRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side calls without HTTP: server components and tests. */
export const createCaller = createCallerFactory(appRouter);
