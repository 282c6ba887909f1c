-- Up Migration
-- OpenTelemetry trace context (docs/tracing.md).
--
-- A producer's W3C `traceparent` (REST header, SDK option; with tracing on in the control
-- plane, the REST request's own server span) travels with the execution, so the
-- coordinator can start each attempt's span as its child: the request that enqueued the
-- work and the work are one trace. Stored normalized as version 00
-- ('00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>', 55 characters) by the
-- enqueue service, which refuses anything else (server/core/trace-context.ts); NULL when
-- the producer sent none — the common case, which costs nothing.
--
-- `overflow` carries it too: a spilled execution drained back keeps its trace
-- (server/db/drain-overflow.ts). Adding a nullable column without a default rewrites
-- nothing (a catalog change only), so this is instant on a large table. The claim and
-- finish functions are unchanged: a coordinator with tracing on reads the column by id
-- after its claim (server/db/read-trace-contexts.ts); one with tracing off never reads it.
ALTER TABLE executions ADD COLUMN traceparent text;
ALTER TABLE overflow ADD COLUMN traceparent text;

-- Down Migration
ALTER TABLE overflow DROP COLUMN traceparent;
ALTER TABLE executions DROP COLUMN traceparent;
