// A free TCP port on 127.0.0.1 for a server a test starts, picked below the kernel's
// ephemeral range (32768–60999 on Linux): a port picked inside it can be taken, between the
// check and the server's bind, by the source port of any outgoing connection on the machine
// (every test process's connections to Postgres) — seen as "Port 45950 … is already in use"
// in a CI run.
import { portIsFree } from '../../server/db/embedded';

/** A port in [from, from + span) that is free now, starting at a random one. */
export async function freePort(from = 20_000, span = 10_000): Promise<number> {
  const start = from + Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = from + ((start - from + i) % span);
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port in ${from}–${from + span - 1}`);
}
