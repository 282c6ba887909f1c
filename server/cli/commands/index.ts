// Registry of CLI commands; each module exports `register(program: Command): void`.
import type { Command } from 'commander';

export const commands: Array<(program: Command) => void> = [];
