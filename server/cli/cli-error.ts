/** An error the CLI prints as-is (no stack) before exiting with status 2. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}
