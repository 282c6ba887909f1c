#!/usr/bin/env node
// `npx sluice <command>`: runs the TypeScript CLI through tsx's loader, so the repo
// needs no separate compile step for its commands.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

register();
const main = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'server', 'cli', 'main.ts');
await import(main);
