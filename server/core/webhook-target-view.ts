// A webhook target as pages and API replies show it: never its secret, only whether it
// has one. Core, so the writes (services/webhooks.ts) and the reads
// (presenters/webhooks.ts) return one shape.
export interface WebhookTargetView {
  id: string;
  name: string;
  url: string;
  hasSecret: boolean;
  enabled: boolean;
  minSeverity: 'warning' | 'critical';
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}
