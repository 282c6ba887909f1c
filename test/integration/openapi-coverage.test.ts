// The OpenAPI document (server/api/openapi.ts) against the route files it describes, with
// no database: every exported handler of every app/api/v1/**/route.ts is documented with
// the token roles its restRoute(...) accepts, every documented operation is a real route,
// every $ref resolves to a component, operationIds are unique, and path templates match
// their path parameters. Adding a route without documenting it fails here.
//
// Left undocumented on purpose: GET /api/v1/openapi.json, the document itself (public,
// no token); UNDOCUMENTED below says so and is checked to stay accurate.
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../../server/api/openapi';
import { TOKEN_ACCESS } from '../../server/core/roles';

const root = path.resolve(import.meta.dirname, '..', '..');
const apiDir = path.join(root, 'app', 'api', 'v1');

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const UNDOCUMENTED = new Set(['GET /api/v1/openapi.json']);

interface RouteFile {
  file: string;
  urlPath: string;
  source: string;
  methods: string[];
}

function routeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...routeFiles(p));
    else if (e.name === 'route.ts') out.push(p);
  }
  return out.sort();
}

/** app/api/v1/dead-letters/[id]/route.ts → /api/v1/dead-letters/{id} */
function urlPathOf(file: string): string {
  const segments = path.relative(path.join(root, 'app'), path.dirname(file)).split(path.sep);
  return (
    '/' +
    segments
      .filter((s) => !/^\(.*\)$/.test(s)) // route groups are not part of the URL
      .map((s) => {
        if (s.startsWith('[...') || s.startsWith('[[')) throw new Error(`${file}: catch-all segments are not supported by this test`);
        const m = /^\[(\w+)\]$/.exec(s);
        return m ? `{${m[1]}}` : s;
      })
      .join('/')
  );
}

/** The HTTP methods a route file exports: `export (async) function GET`, `export const GET =`, `export { x as GET }`. */
function exportedMethods(source: string): string[] {
  const names = new Set<string>();
  const method = HTTP_METHODS.join('|');
  for (const m of source.matchAll(new RegExp(`export\\s+(?:async\\s+)?function\\s*\\*?\\s*(${method})\\b`, 'g'))) names.add(m[1]!);
  for (const m of source.matchAll(new RegExp(`export\\s+(?:const|let|var)\\s+(${method})\\b`, 'g'))) names.add(m[1]!);
  for (const m of source.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const part of m[1]!.split(',')) {
      const exported = part.trim().split(/\s+as\s+/).pop()?.trim();
      if (exported && (HTTP_METHODS as readonly string[]).includes(exported)) names.add(exported);
    }
  }
  return [...names].sort();
}

/** The roles of `export const GET = restRoute<…>(TOKEN_ACCESS.read, …)` (the one declaration,
 *  server/core/roles.ts) or of a literal `restRoute(['viewer', 'operator'], …)`; null when the
 *  handler is not a restRoute. */
function restRouteRoles(source: string, method: string): string[] | null {
  const head = `export\\s+const\\s+${method}\\s*=\\s*restRoute\\s*(?:<[^>]*>)?\\s*\\(\\s*`;
  const named = new RegExp(`${head}TOKEN_ACCESS\\.(\\w+)`).exec(source);
  if (named) {
    const roles = (TOKEN_ACCESS as Record<string, readonly string[]>)[named[1]!];
    if (!roles) throw new Error(`TOKEN_ACCESS.${named[1]} is not declared in server/core/roles.ts`);
    return [...roles].sort();
  }
  const m = new RegExp(`${head}\\[([^\\]]*)\\]`).exec(source);
  return m ? [...m[1]!.matchAll(/['"](\w+)['"]/g)].map((x) => x[1]!).sort() : null;
}

const routes: RouteFile[] = routeFiles(apiDir).map((file) => {
  const source = fs.readFileSync(file, 'utf8');
  return { file: path.relative(root, file), urlPath: urlPathOf(file), source, methods: exportedMethods(source) };
});

type Operation = Record<string, unknown> & { operationId?: string; parameters?: { name: string; in: string; required?: boolean }[] };
type Doc = { paths: Record<string, Record<string, unknown>>; components: Record<string, unknown> };
const doc = openApiDocument() as Doc;

function documentedOperations(): { key: string; urlPath: string; method: string; op: Operation }[] {
  const out = [];
  for (const [urlPath, item] of Object.entries(doc.paths)) {
    for (const [k, op] of Object.entries(item)) {
      if ((HTTP_METHODS as readonly string[]).includes(k.toUpperCase())) {
        out.push({ key: `${k.toUpperCase()} ${urlPath}`, urlPath, method: k.toUpperCase(), op: op as Operation });
      }
    }
  }
  return out;
}

const routePairs = routes.flatMap((r) => r.methods.map((m) => `${m} ${r.urlPath}`)).sort();
const documentedPairs = documentedOperations().map((o) => o.key).sort();

describe('route discovery (the helpers this test relies on)', () => {
  it('finds the route files and their exported methods', () => {
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.every((r) => r.methods.length > 0)).toBe(true);
    expect(urlPathOf(path.join(apiDir, 'dead-letters', 'replay-jobs', '[id]', '[action]', 'route.ts'))).toBe('/api/v1/dead-letters/replay-jobs/{id}/{action}');
    expect(urlPathOf(path.join(apiDir, 'tasks', '[task]', 'executions', 'route.ts'))).toBe('/api/v1/tasks/{task}/executions');
    expect(
      exportedMethods(
        'export async function GET() {}\nexport function POST() {}\nexport const DELETE = restRoute([], h);\nconst p = 1;\nexport { p as PATCH };\nexport const dynamic = 1;',
      ),
    ).toEqual(['DELETE', 'GET', 'PATCH', 'POST']);
  });
});

describe('OpenAPI document ↔ app/api/v1 route files', () => {
  it('documents every exported method of every route file', () => {
    const missing = routePairs.filter((p) => !UNDOCUMENTED.has(p) && !documentedPairs.includes(p));
    expect(missing, 'routes missing from server/api/openapi.ts').toEqual([]);
  });

  it('documents only operations that exist as routes', () => {
    const extra = documentedPairs.filter((p) => !routePairs.includes(p));
    expect(extra, 'documented operations with no route file').toEqual([]);
  });

  it('leaves only GET /api/v1/openapi.json undocumented, and that route exists', () => {
    for (const p of UNDOCUMENTED) {
      expect(routePairs).toContain(p);
      expect(documentedPairs).not.toContain(p);
    }
  });

  it("names, in x-sluice-roles and the description, exactly the roles each route's restRoute(...) accepts", () => {
    const byKey = new Map(documentedOperations().map((o) => [o.key, o.op]));
    for (const r of routes) {
      for (const m of r.methods) {
        const op = byKey.get(`${m} ${r.urlPath}`);
        if (!op) continue; // reported above
        const roles = restRouteRoles(r.source, m);
        if (roles === null) {
          // Not a restRoute: its auth is its own business, but the document must say so.
          expect(op.security, `${m} ${r.urlPath} (${r.file}) is not a restRoute: declare its security explicitly`).toBeInstanceOf(Array);
          continue;
        }
        expect([...((op['x-sluice-roles'] as string[] | undefined) ?? [])].sort(), `${m} ${r.urlPath} x-sluice-roles`).toEqual(roles);
        expect(op.description, `${m} ${r.urlPath} description`).toContain(`Token roles: ${(op['x-sluice-roles'] as string[]).join(', ')}.`);
        expect(Object.keys(op.responses as object), `${m} ${r.urlPath} responses`).toContain('401');
      }
    }
  });
});

describe('OpenAPI document consistency', () => {
  it('every $ref resolves to a component', () => {
    const refs: { at: string; ref: string }[] = [];
    const walk = (v: unknown, at: string) => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}/${i}`));
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.push({ at, ref: x });
          else walk(x, `${at}/${k}`);
        }
      }
    };
    walk(doc, '#');
    expect(refs.length).toBeGreaterThan(10);
    const unresolved = refs.filter(({ ref }) => {
      if (!ref.startsWith('#/components/')) return true;
      let node: unknown = doc;
      for (const raw of ref.slice(2).split('/')) {
        const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        if (!node || typeof node !== 'object' || !(key in node)) return true;
        node = (node as Record<string, unknown>)[key];
      }
      return node === undefined;
    });
    expect(unresolved).toEqual([]);
  });

  it('every operation has a unique operationId, a summary and responses', () => {
    const ops = documentedOperations();
    const ids = ops.map((o) => o.op.operationId);
    expect(ops.filter((o) => typeof o.op.operationId !== 'string' || o.op.operationId === '').map((o) => o.key)).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const o of ops) {
      expect(typeof o.op.summary, `${o.key} summary`).toBe('string');
      expect(Object.keys((o.op.responses as object | undefined) ?? {}).length, `${o.key} responses`).toBeGreaterThan(0);
    }
  });

  it("every {param} in a path is a required path parameter of each of its operations, and there are no others", () => {
    for (const o of documentedOperations()) {
      const template = [...o.urlPath.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
      const declared = (o.op.parameters ?? []).filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name).sort(), o.key).toEqual(template);
      expect(declared.every((p) => p.required === true), `${o.key}: path parameters must be required`).toBe(true);
    }
  });

  it('documents the export as JSON lines', () => {
    const op = doc.paths['/api/v1/dead-letters/purge-previews/{id}/export']?.get as { responses: Record<string, { content?: object }> } | undefined;
    expect(Object.keys(op?.responses['200']?.content ?? {})).toEqual(['application/x-ndjson']);
  });
});
