// The house holds by itself: `sluice/architecture` checks every import between the parts
// named in eslint/architecture.json (a copy of ../shared/architecture.json, which
// eslint/architecture.test.ts keeps equal when that file is beside the repository).
//
// A file belongs to the part whose `is` prefix matches its path (longest prefix wins).
// An import from one part into another must follow an arrow [from, to, note]:
//  * a `never` arrow is an error that names its reason;
//  * no arrow at all is an error too (the house lists what is allowed);
//  * an arrow whose note says "types" / "types only" / "client types only" admits
//    `import type` (or `export type … from`, or specifiers all marked `type`) only.
// Imports inside one part, into files of no part (server/env.ts, server/sdk/, …) and of
// packages are not governed here. Paths: relative specifiers and the `@/` alias
// (tsconfig paths) resolve against the repository root.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ARCHITECTURE_FILE = path.join(ROOT, 'eslint', 'architecture.json');

/** @param {unknown} note */
function typesOnly(note) {
  return typeof note === 'string' && /^(client )?types( only)?$/.test(note.trim());
}

export function loadArchitecture(file = ARCHITECTURE_FILE) {
  const arch = JSON.parse(fs.readFileSync(file, 'utf8'));
  const prefixes = [];
  for (const [name, part] of Object.entries(arch.parts)) for (const p of part.is) prefixes.push([p, name]);
  prefixes.sort((a, b) => b[0].length - a[0].length);
  const arrows = new Map();
  for (const [from, to, note] of arch.arrows) arrows.set(`${from}>${to}`, { typesOnly: typesOnly(note), note: note ?? '' });
  const never = new Map();
  for (const [from, to, why] of arch.never) never.set(`${from}>${to}`, why ?? '');
  return {
    /** @param {string} rel repository-relative path with forward slashes */
    partOf(rel) {
      for (const [p, name] of prefixes) if (rel.startsWith(p) || `${rel}/` === p) return name;
      return null;
    },
    arrows,
    never,
  };
}

/** @param {string} filename @param {string} spec */
function resolveSpecifier(filename, spec) {
  let abs;
  if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') abs = path.resolve(path.dirname(filename), spec);
  else if (spec.startsWith('@/')) abs = path.join(ROOT, spec.slice(2));
  else return null;
  return path.relative(ROOT, abs).split(path.sep).join('/');
}

/** @type {import('eslint').Rule.RuleModule} */
export const architectureRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports between parts follow the arrows of eslint/architecture.json' },
    schema: [],
    messages: {
      never: '{{from}} never imports {{to}} ({{why}}): {{spec}}',
      noArrow: '{{from}} may not import {{to}}: no arrow {{from}} → {{to}} in eslint/architecture.json ({{spec}})',
      typesOnly: '{{from}} may import only types from {{to}} (arrow note: "{{note}}"): use `import type` for {{spec}}',
    },
  },
  create(context) {
    const arch = loadArchitecture();
    const filename = context.filename ?? context.getFilename();
    const relFile = path.relative(ROOT, filename).split(path.sep).join('/');
    const from = arch.partOf(relFile);
    if (!from) return {};

    /** @param {import('estree').Node} node @param {string} spec @param {boolean} typeOnly */
    function check(node, spec, typeOnly) {
      const target = resolveSpecifier(filename, spec);
      if (target === null) return;
      const to = arch.partOf(target);
      if (!to || to === from) return;
      const key = `${from}>${to}`;
      if (arch.never.has(key)) {
        context.report({ node, messageId: 'never', data: { from, to, why: arch.never.get(key), spec } });
        return;
      }
      const arrow = arch.arrows.get(key);
      if (!arrow) {
        context.report({ node, messageId: 'noArrow', data: { from, to, spec } });
        return;
      }
      if (arrow.typesOnly && !typeOnly) context.report({ node, messageId: 'typesOnly', data: { from, to, note: arrow.note, spec } });
    }

    /** @param {any} node */
    const allTypeSpecifiers = (node) =>
      node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type');

    return {
      ImportDeclaration(node) {
        check(node, String(node.source.value), node.importKind === 'type' || allTypeSpecifiers(node));
      },
      ExportNamedDeclaration(node) {
        if (node.source) check(node, String(node.source.value), node.exportKind === 'type' || allTypeSpecifiers(node));
      },
      ExportAllDeclaration(node) {
        check(node, String(node.source.value), node.exportKind === 'type');
      },
      ImportExpression(node) {
        if (node.source.type === 'Literal' && typeof node.source.value === 'string') check(node, node.source.value, false);
      },
      // import('x').Type in a type position is a type-only use
      TSImportType(node) {
        const arg = node.argument;
        const lit = arg?.type === 'TSLiteralType' ? arg.literal : arg;
        if (lit?.type === 'Literal' && typeof lit.value === 'string') check(node, lit.value, true);
      },
    };
  },
};

export default { rules: { architecture: architectureRule } };
