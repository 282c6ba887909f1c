// A small seeded PRNG (mulberry32) for places that take `rand: () => number` and want
// reproducible runs: tests, simulations, replays. Not for anything security-related.
// Pure: no I/O imports (server/core rule).

/** Returns a generator of floats in [0, 1), fully determined by the 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A generator that returns the given values in order, then throws (tests pin exact draws). */
export function sequenceRandom(values: readonly number[]): () => number {
  let i = 0;
  return () => {
    if (i >= values.length) throw new Error(`sequenceRandom: asked for draw ${i + 1}, only ${values.length} given`);
    return values[i++]!;
  };
}
