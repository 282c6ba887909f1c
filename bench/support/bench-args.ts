// The flags every benchmark takes: `--quick` (a scaled-down run, used by the tests) and
// `--json FILE` (write the figures); a benchmark may accept more flags that take a value
// (`values`, e.g. bench:whatif's `--only`). Unknown flags stop the run with a usage line.
export interface BenchArgs {
  quick: boolean;
  jsonFile: string | undefined;
  /** The values of the benchmark's own flags (flag → value), when given. */
  values: Record<string, string>;
}

export function parseBenchArgs(argv: string[] = process.argv.slice(2), values: readonly string[] = []): BenchArgs {
  const quick = argv.includes('--quick');
  const withValue = ['--json', ...values];
  const got: Record<string, string> = {};
  const taken = new Set<number>();
  for (const flag of withValue) {
    const at = argv.indexOf(flag);
    if (at < 0) continue;
    const v = argv[at + 1];
    if (!v || v.startsWith('--')) {
      console.error(`${flag} needs a value`);
      process.exit(2);
    }
    got[flag] = v;
    taken.add(at).add(at + 1);
  }
  const unknown = argv.filter((a, i) => a !== '--quick' && !taken.has(i));
  if (unknown.length) {
    console.error(`unknown argument(s): ${unknown.join(' ')} (use --quick, ${withValue.map((f) => `${f} ${f === '--json' ? 'FILE' : 'VALUE'}`).join(', ')})`);
    process.exit(2);
  }
  const { '--json': jsonFile, ...rest } = got;
  return { quick, jsonFile, values: rest };
}
