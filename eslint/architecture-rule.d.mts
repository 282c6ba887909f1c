// Types for architecture-rule.mjs (plain ESM so eslint.config.js loads it without a TS loader).
import type { Rule } from 'eslint';

export const ROOT: string;
export const ARCHITECTURE_FILE: string;
export function loadArchitecture(file?: string): unknown;
export const architectureRule: Rule.RuleModule;
declare const plugin: { rules: { architecture: Rule.RuleModule } };
export default plugin;
