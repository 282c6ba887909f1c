// Registry of CLI commands; each module exports `register(program: Command): void`.
import type { Command } from 'commander';
import { register as start } from './start';
import { register as db } from './db';
import { register as demo } from './demo';
import { register as users } from './users';
import { register as tokens } from './tokens';
import { register as dlq } from './dlq';
import { register as coordinator } from './coordinator';
import { register as config } from './config';
import { register as executions } from './executions';
import { register as executionActions } from './execution-actions';

// executions before executionActions: the latter adds its subcommands to `executions`.
export const commands: Array<(program: Command) => void> = [start, db, demo, users, tokens, dlq, executions, executionActions, coordinator, config];
