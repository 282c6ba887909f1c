// The OpenAPI 3.1 document for /api/v1, served at /api/v1/openapi.json. Request bodies
// come from the same zod schemas the handlers validate with, so the document cannot
// drift from what the server accepts.
import { z } from 'zod';
import { enqueueRequestSchema } from '../services/rest-enqueue';

const errorBody = {
  type: 'object',
  required: ['error', 'code'],
  properties: {
    error: { type: 'string', description: 'What went wrong, for a person.' },
    code: { type: 'string', enum: ['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'FORBIDDEN', 'UNAUTHORIZED', 'TOO_MANY_REQUESTS', 'PRECONDITION_FAILED'] },
    fieldErrors: { type: 'array', items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } } },
    retryAfterMs: { type: 'integer', description: 'With 429: how long to wait before retrying.' },
  },
} as const;

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sluice API',
      version: '1',
      description: 'Enqueue executions of Sluice tasks and read their state. Authenticate with an API token: `Authorization: Bearer slc_…` (create one in Settings → API tokens or with `npx sluice tokens create --name N --role producer`).',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A Sluice API token (slc_…)' } },
      schemas: {
        Error: errorBody,
        EnqueueRequest: z.toJSONSchema(enqueueRequestSchema, { unrepresentable: 'any', io: 'input' }),
        EnqueueReply: {
          type: 'object',
          required: ['executions', 'shed', 'spilled', 'throttledMs'],
          properties: {
            executions: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'partition', 'state', 'deduplicated'],
                properties: {
                  id: { type: ['integer', 'null'], description: 'null when the execution was shed by backpressure' },
                  partition: { type: 'integer' },
                  state: { type: 'string', enum: ['queued', 'blocked', 'spilled', 'shed', 'running', 'succeeded', 'dead'] },
                  deduplicated: { type: 'boolean', description: 'true when the idempotency key matched an existing execution' },
                },
              },
            },
            shed: { type: 'integer', description: 'executions dropped by the shed policy' },
            spilled: { type: 'integer', description: 'executions parked in the overflow table by the spill policy' },
            throttledMs: { type: 'integer', description: 'delay applied by the throttle policy' },
          },
        },
        Execution: {
          type: 'object',
          required: ['id', 'task', 'state', 'attempts', 'partition'],
          properties: {
            id: { type: 'integer' },
            task: { type: 'string' },
            state: { type: 'string', enum: ['blocked', 'queued', 'running', 'succeeded', 'dead'] },
            attempts: { type: 'integer' },
            partition: { type: 'integer' },
            groups: { type: 'object', additionalProperties: { type: 'string' } },
            streamKey: { type: ['string', 'null'] },
            lastError: { type: ['string', 'null'] },
            blocked: { type: 'boolean', description: 'queued behind an unfinished execution of its stream' },
            spilled: { type: 'boolean', description: 'parked in the overflow table by the spill policy' },
            waitingOn: {
              type: ['string', 'null'],
              description: "queued but set aside while this group key ('group=key') is at its limit; claimable again as the key's slots free",
            },
          },
          additionalProperties: true,
        },
      },
    },
    paths: {
      '/api/v1/tasks/{task}/executions': {
        post: {
          summary: 'Enqueue one execution, or a batch with {executions: [...]}',
          description:
            'Routing, group keys (explicit `groups`, else each group\'s keyPath into the payload), streams and backpressure are applied per the task\'s current config. A batch is inserted in one statement. An `idempotencyKey` dedupes per task.',
          parameters: [{ name: 'task', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/EnqueueRequest' } } } },
          responses: {
            '202': { description: 'Accepted', content: { 'application/json': { schema: { $ref: '#/components/schemas/EnqueueReply' } } } },
            '400': errorResponse('Invalid body, with errors field by field'),
            '401': errorResponse('Missing or invalid token'),
            '403': errorResponse('The token\'s role may not enqueue'),
            '404': errorResponse('Unknown task'),
            '429': {
              ...errorResponse('Backpressure rejected the request (policy `reject`); retry after the Retry-After header (seconds)'),
              headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds' } },
            },
          },
        },
      },
      '/api/v1/executions/{id}': {
        get: {
          summary: 'An execution\'s state, attempts and last error',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            '200': { description: 'The execution', content: { 'application/json': { schema: { $ref: '#/components/schemas/Execution' } } } },
            '400': errorResponse('Malformed id'),
            '401': errorResponse('Missing or invalid token'),
            '404': errorResponse('No such execution'),
          },
        },
      },
    },
  };
}
