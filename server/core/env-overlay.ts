// Settings that a caller may pass explicitly or leave to SLUICE_* variables: explicit values
// win over the environment (an empty variable counts as unset), which wins over the schema's
// defaults (applied by the caller's parse). Pure: the caller passes the environment.
export function overlayEnv<K extends string>(explicit: Partial<Record<K, unknown>>, env: Record<string, string | undefined>, names: Record<K, string>): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const [k, name] of Object.entries(names) as [K, string][]) {
    const v = explicit[k] ?? (env[name] !== undefined && env[name] !== '' ? env[name] : undefined);
    if (v !== undefined) raw[k] = v;
  }
  return raw;
}
