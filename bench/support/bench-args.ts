// The flags every benchmark takes: `--quick` (a scaled-down run, used by the tests) and
// `--json FILE` (write the figures). Unknown flags stop the run with a usage line.
export interface BenchArgs {
  quick: boolean;
  jsonFile: string | undefined;
}

export function parseBenchArgs(argv: string[] = process.argv.slice(2)): BenchArgs {
  const quick = argv.includes('--quick');
  const jsonAt = argv.indexOf('--json');
  const jsonFile = jsonAt >= 0 ? argv[jsonAt + 1] : undefined;
  if (jsonAt >= 0 && (!jsonFile || jsonFile.startsWith('--'))) {
    console.error('--json needs a file name');
    process.exit(2);
  }
  const unknown = argv.filter((a, i) => !['--quick', '--json'].includes(a) && !(jsonAt >= 0 && i === jsonAt + 1));
  if (unknown.length) {
    console.error(`unknown argument(s): ${unknown.join(' ')} (use --quick, --json FILE)`);
    process.exit(2);
  }
  return { quick, jsonFile };
}
