// Reading a tRPC error on the client: its message and the field errors the server's
// formatter attached (server/api/trpc.ts).
import { TRPCClientError } from '@trpc/client';

export interface FieldErrorMap {
  [path: string]: string;
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return 'Something went wrong.';
}

export function fieldErrorsOf(e: unknown): FieldErrorMap {
  if (!(e instanceof TRPCClientError)) return {};
  const list = (e.data as { fieldErrors?: { path: string; message: string }[] | null } | undefined)?.fieldErrors ?? [];
  const out: FieldErrorMap = {};
  for (const f of list) out[f.path] ??= f.message;
  return out;
}
