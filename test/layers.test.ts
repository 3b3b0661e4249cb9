/**
 * docs/design.md §1's layer rule as data, checked on the import graph of the sources. `LAYERS` says, for each folder of
 * ours, its job and which of our other folders it may import; anything else fails. Besides: only main/app and
 * preload/ import electron; main/sync and main/api use no DOM types; the renderer imports only types, and nothing of
 * Node or Electron at all.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');

export interface Import {
  file: string;
  specifier: string;
  typeOnly: boolean;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const abs = join(d, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (/\.(ts|tsx|mts|cts)$/.test(entry.name)) out.push(abs);
    }
  };
  walk(dir);
  return out;
}

/** Every import, export-from, dynamic import and require of a file, and whether it is type-only. */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: Import[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name && !!clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      found.push({ file, specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ file, specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push({ file, specifier: node.moduleReference.expression.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) {
        found.push({ file, specifier: node.arguments[0].text, typeOnly: false });
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ file, specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // Triple-slash references pull in types as well.
  for (const ref of source.typeReferenceDirectives) found.push({ file, specifier: ref.fileName, typeOnly: true });
  for (const ref of source.libReferenceDirectives) found.push({ file, specifier: `lib:${ref.fileName.toLowerCase()}`, typeOnly: true });
  return found;
}

export interface Layer {
  /** What the folder (or file) is for, in a few words. */
  job: string;
  /** The layers it may import (npm packages and Node's own modules are judged by the rules below, not here). */
  mayImport: readonly string[];
  /** Whether it may import only types from them (the page runs none of our code but its own). */
  typesOnly?: boolean;
}

/** The window's contract: the one folder the preload and the renderer may import. */
export const CONTRACT = 'main/contract';

/** The engine's states: a leaf of main/sync that the contract names them from, without reaching into the engine. */
export const STATES = 'main/sync/model/states.ts';

/**
 * The engine's subsystems (main/sync, one folder each), lowest first: each may import those below it that it names,
 * so a newcomer reads them bottom up and a change to one touches only what sits above it.
 */
export const SYNC_SUBSYSTEMS: Readonly<Record<string, Layer>> = {
  'main/sync/model': { job: "the engine's words: the items of the three trees, operations and rule ids, names, identity", mayImport: ['main/api', STATES] },
  'main/sync/trees': { job: 'the three trees in memory (columns), base and the journal in SQLite, how an outcome changes them', mayImport: ['main/api', STATES, 'main/sync/model'] },
  'main/sync/local': { job: 'the local side: the file-system port, the scan, the watcher, the synced folder\'s identity', mayImport: ['main/api', STATES, 'main/sync/model', 'main/sync/trees'] },
  'main/sync/remote': { job: "the drive's side: listings, the cheap change checks, what is shared with the account, a byte check", mayImport: ['main/api', STATES, 'main/sync/model', 'main/sync/trees', 'main/sync/local'] },
  'main/sync/plan': { job: 'the planner, pure: scope, selection and sharing as its stages, the rows of docs/sync-rules.md', mayImport: ['main/api', STATES, 'main/sync/model', 'main/sync/trees'] },
  'main/sync/execute': { job: "a plan's operations carried out, journalled; lost uploads adopted; the OS trash", mayImport: ['main/api', STATES, 'main/sync/model', 'main/sync/trees', 'main/sync/local', 'main/sync/remote'] },
  'main/sync/engine': {
    job: "one folder's engine: its loop, states and timers, and the pass (scan, list, adopt, plan, guard, execute)",
    mayImport: ['main/api', STATES, 'main/sync/model', 'main/sync/trees', 'main/sync/local', 'main/sync/remote', 'main/sync/plan', 'main/sync/execute'],
  },
};
const SYNC = Object.keys(SYNC_SUBSYSTEMS);

/** Every layer of ours: a folder (or one file) and what it may import. A source in no layer fails. */
export const LAYERS: Readonly<Record<string, Layer>> = {
  'main/api': { job: 'typed client of the service', mayImport: [] },
  [STATES]: { job: "the engine's states, declared once (it imports nothing)", mayImport: [] },
  ...SYNC_SUBSYSTEMS,
  'main/state': {
    job: 'account and folder state shared by both front ends, openFolder, and what they read of a mirror or an engine',
    mayImport: [...SYNC, STATES, 'main/api'],
  },
  'main/cli': { job: 'the drivesync command', mayImport: ['main/state', 'main/api', 'server'] },
  'main/app': { job: 'the desktop app: Electron main process and the host', mayImport: ['main/state', 'main/api', CONTRACT] },
  [CONTRACT]: { job: "the window's calls and events, with their types", mayImport: ['main/api', STATES] },
  server: { job: 'the reference server of the service', mayImport: ['main/api'] },
  preload: { job: 'the bridge the page gets (contextBridge)', mayImport: [CONTRACT] },
  renderer: { job: 'the window (Preact)', mayImport: [CONTRACT], typesOnly: true },
  scripts: { job: 'build tools', mayImport: ['vite.renderer.config.ts', 'main/api'] },
  'scripts/window': {
    job: 'the window in a browser, without Electron (npm run window, the renderer tests)',
    mayImport: ['main/app', CONTRACT, 'main/state', 'preload', 'server'],
  },
  'vite.renderer.config.ts': { job: "the renderer's build (the CSP goes into its page)", mayImport: ['main/app'] },
};

const isElectron = (s: string) => s === 'electron' || s.startsWith('electron/');
const isDom = (s: string) => /^lib:dom/.test(s) || s === '@types/web' || s === 'web';
const rel = (file: string) => relative(REPO, file).split(sep).join('/');
const within = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);
/** The repository path a relative import points at; null for a package, a Node module or a lib reference. */
const target = (i: Import) => (i.specifier.startsWith('.') ? rel(resolve(join(i.file, '..'), i.specifier)).replace(/\.js$/, '.ts') : null);
const resolvedInto = (i: Import, folder: string) => {
  const to = target(i);
  return to !== null && within(to, folder);
};

/** The layer a repository path is in: the most specific one that holds it. */
export function layerOf(path: string): string | null {
  let best: string | null = null;
  for (const name of Object.keys(LAYERS)) if (within(path, name) && (!best || name.length > best.length)) best = name;
  return best;
}

/** The rule's breaches among these imports, one line each. */
export function layerViolations(imports: readonly Import[]): string[] {
  const out: string[] = [];
  for (const i of imports) {
    const where = rel(i.file);
    const what = `${where} imports ${i.specifier}`;
    const from = layerOf(where);
    if (from === null) {
      if (!where.startsWith('test/')) out.push(`${what}: ${where} is in no layer (add its folder to LAYERS)`);
      continue;
    }
    const to = target(i);
    if (to !== null) {
      const into = layerOf(to);
      if (into === null) out.push(`${what}: ${to} is in no layer`);
      else if (into !== from && !LAYERS[from]!.mayImport.includes(into)) {
        const allowed = LAYERS[from]!.mayImport.join(', ') || 'nothing of ours';
        out.push(`${what}: ${from} may import ${allowed}; not ${into}`);
      } else if (into !== from && LAYERS[from]!.typesOnly && !i.typeOnly) out.push(`${what}: ${from} may import only types from ${into}`);
    }
    if (isElectron(i.specifier) && from !== 'main/app' && from !== 'preload') out.push(`${what}: only main/app and preload may import electron`);
    if ((from.startsWith('main/sync') || from === 'main/api') && isDom(i.specifier)) out.push(`${what}: the engine and the API client use no DOM types`);
    if (from === 'renderer' && (isElectron(i.specifier) || i.specifier.startsWith('node:'))) out.push(`${what}: the renderer runs in a sandboxed page`);
  }
  return out;
}

/**
 * The source file of ours a relative import loads, among `known` (repository paths): a `.js` specifier is its `.ts`
 * (or `.tsx`; `.mjs` its `.mts`, `.cjs` its `.cts`), a path without an extension its `.ts` or its folder's index.
 * Null for a package, a Node module, a lib reference or a file that is not one of `known`.
 */
function sourceOf(i: Import, known: ReadonlySet<string>): string | null {
  if (!i.specifier.startsWith('.')) return null;
  const path = rel(resolve(join(i.file, '..'), i.specifier));
  const stem = path.replace(/\.[mc]?js$/, '');
  const candidates = path.endsWith('.mjs')
    ? [path, `${stem}.mts`]
    : path.endsWith('.cjs')
      ? [path, `${stem}.cts`]
      : path.endsWith('.js')
        ? [path, `${stem}.ts`, `${stem}.tsx`]
        : [path, `${path}.ts`, `${path}.tsx`, `${path}/index.ts`, `${path}/index.tsx`];
  return candidates.find((c) => known.has(c)) ?? null;
}

/** Who imports whom among `files` (absolute paths), by repository path; a type-only import is an edge as well. */
export function importGraph(imports: readonly Import[], files: readonly string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>(files.map((f) => [rel(f), new Set<string>()]));
  const known = new Set(graph.keys());
  for (const i of imports) {
    const from = graph.get(rel(i.file));
    const to = sourceOf(i, known);
    if (from && to !== null) from.add(to);
  }
  return graph;
}

/**
 * The strongly connected components of a graph (Tarjan), each sorted, in a stable order: every set of files that
 * reach each other through their imports.
 */
function components(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of [...(graph.get(v) ?? [])].sort()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        component.push(w);
        if (w === v) break;
      }
      out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** The shortest import path from `from` to one of `to`, staying inside `within`; `from` itself is not a step. */
function shortestPath(graph: ReadonlyMap<string, ReadonlySet<string>>, from: string, to: ReadonlySet<string>, within: ReadonlySet<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head]!;
    for (const w of [...(graph.get(v) ?? [])].sort()) {
      if (!within.has(w) || cameFrom.has(w) || w === from) continue;
      cameFrom.set(w, v);
      if (to.has(w)) {
        const path = [w];
        for (let p = v; p !== from; p = cameFrom.get(p)!) path.unshift(p);
        return path;
      }
      queue.push(w);
    }
  }
  return [];
}

/**
 * Every circle of imports among `files`, one line each (`a.ts → b.ts → a.ts`): a file that imports itself, and each
 * set of files that reach each other, shown as one round trip from its first file through all of them. A component
 * larger than one circle shows every file in it, so the line names all that has to be untangled.
 */
export function importCircles(imports: readonly Import[], files: readonly string[]): string[] {
  const graph = importGraph(imports, files);
  const out: string[] = [];
  for (const component of components(graph)) {
    for (const file of component) if (graph.get(file)!.has(file)) out.push(`${file} → ${file}`);
    if (component.length === 1) continue;
    const start = component[0]!;
    const within = new Set(component);
    const walk = [start];
    const unseen = new Set(component.slice(1));
    while (unseen.size > 0) {
      const steps = shortestPath(graph, walk.at(-1)!, unseen, within);
      for (const step of steps) unseen.delete(step);
      walk.push(...steps);
    }
    walk.push(...shortestPath(graph, walk.at(-1)!, new Set([start]), within));
    out.push(walk.join(' → '));
  }
  return out;
}

/** The mirror's tables, read from the schema its owner creates (main/sync/mirror.ts). */
export const MIRROR_TABLES = [...readFileSync(join(REPO, 'main/sync/trees/mirror.ts'), 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/gi)].map((m) => m[1]!);

/** The owners of the mirror's SQL: `Mirror` and its read-only companion for the front ends. */
const ownsMirrorSql = (path: string) => /^main\/sync\/trees\/mirror[\w-]*\.ts$/.test(path);

/** Which SQLite bindings count as opening a database. */
const isSqlite = (s: string) => s === 'better-sqlite3' || s === 'node:sqlite' || s === 'sqlite3';

/**
 * SQL on the mirror's tables in a source's strings (literals and templates, a template's expressions read as `?`),
 * one line each; prose in comments is not SQL and is not read.
 */
export function mirrorSqlIn(file: string, text = readFileSync(file, 'utf8')): string[] {
  const tables = MIRROR_TABLES.join('|');
  const sql = new RegExp(
    String.raw`\b(?:from|into|update|join|on|table(?:\s+if\s+(?:not\s+)?exists)?)\s+["'\`\[]?(?:${tables})\b|\bname\s*=\s*'(?:${tables})'`,
    'i',
  );
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const check = (node: ts.Node, literal: string) => {
    if (sql.test(literal)) found.push(`${rel(file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${literal.trim().split(/\s+/).join(' ')}`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) check(node, node.text);
    else if (ts.isTemplateExpression(node)) check(node, node.head.text + node.templateSpans.map((span) => `?${span.literal.text}`).join(''));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const ALL = [...['main', 'server', 'preload', 'renderer', 'scripts'].flatMap((d) => sources(join(REPO, d))), join(REPO, 'vite.renderer.config.ts')];

const at = (path: string, text: string) => importsOf(join(REPO, path), text);

describe('the layer rule (docs/design.md §1)', () => {
  it('finds the imports it has to judge', () => {
    const imports = ALL.flatMap((f) => importsOf(f));
    expect(imports.some((i) => rel(i.file) === 'main/app/app.ts' && i.specifier === 'electron')).toBe(true);
    expect(imports.some((i) => rel(i.file).startsWith('renderer/') && resolvedInto(i, CONTRACT) && i.typeOnly)).toBe(true);
    expect(imports.some((i) => rel(i.file).startsWith('main/app/') && resolvedInto(i, 'main/state'))).toBe(true);
    expect(imports.some((i) => rel(i.file).startsWith('main/cli/') && resolvedInto(i, 'main/state'))).toBe(true);
    expect(ALL.filter((f) => rel(f).startsWith('main/sync/')).length).toBeGreaterThan(3);
  });

  it('holds for every source file', () => {
    expect(layerViolations(ALL.flatMap((f) => importsOf(f)))).toEqual([]);
  });

  it('puts every source file in a layer', () => {
    expect(ALL.map(rel).filter((f) => layerOf(f) === null)).toEqual([]);
    for (const folder of readdirSync(join(REPO, 'main'), { withFileTypes: true }).filter((e) => e.isDirectory())) {
      if (folder.name !== 'sync') expect(LAYERS[`main/${folder.name}`], `main/${folder.name}`).toBeDefined();
    }
    // The engine is its subsystems: each folder of main/sync is one, and nothing lies beside them.
    const inSync = readdirSync(join(REPO, 'main/sync'), { withFileTypes: true });
    expect(inSync.filter((e) => !e.isDirectory()).map((e) => e.name)).toEqual([]);
    for (const folder of inSync.filter((e) => e.isDirectory())) expect(SYNC_SUBSYSTEMS[`main/sync/${folder.name}`], `main/sync/${folder.name}`).toBeDefined();
  });

  it('allows exactly what LAYERS lists, for every pair of layers', () => {
    const fileIn = (layer: string) => (/\.ts$/.test(layer) ? layer : `${layer}/x.ts`);
    for (const from of Object.keys(LAYERS)) {
      for (const to of Object.keys(LAYERS)) {
        if (to === from || layerOf(fileIn(to)) !== to) continue;
        let specifier = relative(join(REPO, fileIn(from), '..'), join(REPO, fileIn(to))).split(sep).join('/').replace(/\.ts$/, '.js');
        if (!specifier.startsWith('.')) specifier = `./${specifier}`;
        const found = layerViolations(at(fileIn(from), `import type { X } from '${specifier}';`));
        expect(found, `${from} → ${to}`).toHaveLength(LAYERS[from]!.mayImport.includes(to) ? 0 : 1);
      }
    }
  });

  it('keeps the two front ends apart: neither main/cli nor main/app imports the other or the engine, and main/state neither front end', () => {
    expect(layerViolations(at('main/app/host/x.ts', "import { openSession } from '../../cli/session.js';"))).toHaveLength(1);
    expect(layerViolations(at('main/cli/x.ts', "import { DesktopHost } from '../app/host/host.js';"))).toHaveLength(1);
    expect(layerViolations(at('main/state/x.ts', "import { log } from '../cli/log.js';"))).toHaveLength(1);
    expect(layerViolations(at('main/sync/x.ts', "import { loadConfig } from '../state/config.js';"))).toHaveLength(1);
    expect(layerViolations(at('main/api/x.ts', "import type { SyncEngine } from '../sync/engine.js';"))).toHaveLength(1);
    expect(layerViolations(at('main/extra/x.ts', "import { loadConfig } from '../state/config.js';"))).toHaveLength(1);
    expect(layerViolations(at('main/cli/x.ts', "import { readMirror } from '../sync/mirror-read.js';"))).toHaveLength(1);
    expect(layerViolations(at('main/app/host/x.ts', "import type { EngineState } from '../../sync/types.js';"))).toHaveLength(1);
    expect(layerViolations(at('main/app/x.ts', "import { openFolder } from '../state/folder.js';"))).toEqual([]);
    expect(layerViolations(at('main/cli/x.ts', "import { readMirror } from '../state/mirror-view.js';"))).toEqual([]);
  });

  it('main/sync and main/api compile without DOM types and name no DOM globals', () => {
    const config = JSON.parse(readFileSync(join(REPO, 'tsconfig.json'), 'utf8')) as { compilerOptions: { lib: string[] } };
    expect(config.compilerOptions.lib.map((l) => l.toLowerCase()).filter((l) => l.startsWith('dom'))).toEqual([]);
    for (const file of ALL.filter((f) => /^main\/(sync|api)\//.test(rel(f)))) {
      const text = readFileSync(file, 'utf8');
      expect(text, rel(file)).not.toMatch(/\b(window|document|HTMLElement|localStorage|navigator)\./);
    }
  });

  it('catches each kind of breach (the check can fail)', () => {
    expect(layerViolations(at('main/sync/x.ts', "import { app } from 'electron';"))).toHaveLength(1);
    expect(layerViolations(at('main/api/x.ts', '/// <reference lib="dom" />\nexport {};'))).toHaveLength(1);
    expect(layerViolations(at('main/cli/x.ts', "const e = await import('electron');"))).toHaveLength(1);
    expect(layerViolations(at('server/x.ts', "const e = require('electron/main');"))).toHaveLength(1);
    expect(layerViolations(at('renderer/src/x.ts', "import { DesktopHost } from '../../main/app/host/host.js';"))).toHaveLength(1);
    expect(layerViolations(at('renderer/src/x.ts', "import { API_NAME, type Settings } from '../../main/contract/index.js';"))).toHaveLength(1);
    expect(layerViolations(at('renderer/src/x.ts', "import { readFileSync } from 'node:fs';"))).toHaveLength(1);
    expect(layerViolations(at('renderer/src/x.ts', "import type { Settings } from '../../main/contract/index.js';"))).toEqual([]);
    expect(layerViolations(at('renderer/src/x.ts', "import { type Settings } from '../../main/contract/index.js';"))).toEqual([]);
    expect(layerViolations(at('preload/x.ts', "import { ipcRenderer } from 'electron';"))).toEqual([]);
  });
});

describe("the mirror's SQL has one owner (main/sync/trees/mirror*.ts)", () => {
  it('reads the tables from the schema', () => {
    expect(MIRROR_TABLES).toEqual(expect.arrayContaining(['base', 'intents']));
  });

  it('finds SQL on the mirror only in its owners, where it is', () => {
    const owners = ALL.filter((f) => ownsMirrorSql(rel(f)));
    expect(owners.map(rel)).toEqual(expect.arrayContaining(['main/sync/trees/mirror.ts', 'main/sync/trees/mirror-read.ts']));
    for (const file of owners) expect(mirrorSqlIn(file).length, rel(file)).toBeGreaterThan(0);
  });

  it('finds none anywhere else in main/', () => {
    expect(ALL.filter((f) => rel(f).startsWith('main/') && !ownsMirrorSql(rel(f))).flatMap((f) => mirrorSqlIn(f))).toEqual([]);
  });

  it('lets nothing else in main/ open a SQLite database', () => {
    const opens = ALL.flatMap((f) => importsOf(f)).filter((i) => isSqlite(i.specifier) && !i.typeOnly);
    expect(opens.map((i) => rel(i.file)).filter((f) => f.startsWith('main/') && !ownsMirrorSql(f))).toEqual([]);
    expect(opens.some((i) => rel(i.file) === 'main/sync/trees/mirror.ts')).toBe(true);
  });

  it('catches each kind of breach (the check can fail)', () => {
    const file = join(REPO, 'main/cli/x.ts');
    expect(mirrorSqlIn(file, "db.prepare('SELECT remote_id FROM base WHERE path = ?');")).toHaveLength(1);
    expect(mirrorSqlIn(file, 'db.prepare(`SELECT ${columns} FROM base WHERE parent_id = ?`);')).toHaveLength(1);
    expect(mirrorSqlIn(file, "db.exec('DELETE FROM intents');")).toHaveLength(1);
    expect(mirrorSqlIn(file, 'db.exec(`INSERT INTO "base" (remote_id) VALUES (${id})`);')).toHaveLength(1);
    expect(mirrorSqlIn(file, "db.prepare(\"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'base'\");")).toHaveLength(1);
    expect(mirrorSqlIn(file, '// what differs from base is planned\nconst x = 1;')).toEqual([]);
    expect(mirrorSqlIn(file, "const message = 'the base of the tree';")).toEqual([]);
  });
});

describe('the imports of our sources form no circle', () => {
  /** The circles among made-up files, each given by its path and its text. */
  const circlesAmong = (files: Record<string, string>) =>
    importCircles(
      Object.entries(files).flatMap(([path, text]) => at(path, text)),
      Object.keys(files).map((path) => join(REPO, path)),
    );

  it('finds the imports between our files, type-only ones too', () => {
    const graph = importGraph(ALL.flatMap((f) => importsOf(f)), ALL);
    expect(graph.get('server/app.ts')).toContain('server/routes/auth.ts');
    expect(graph.get('server/routes/auth.ts')).toContain('server/context.ts');
    expect(graph.get('renderer/src/app.tsx')).toContain('main/contract/index.ts');
    expect(graph.get('main/sync/plan/plan.ts')).toContain('main/sync/plan/plan-state.ts');
  });

  it('holds for every source file', () => {
    expect(importCircles(ALL.flatMap((f) => importsOf(f)), ALL)).toEqual([]);
  });

  it('reports each circle once, on one line (the check can fail)', () => {
    expect(
      circlesAmong({
        'server/a.ts': "import { b } from './b.js';\nexport const a = 1;",
        'server/b.ts': "import type { A } from './a.js';\nexport const b = 2;",
        'main/sync/x.ts': "import { y } from './plan/y.js';",
        'main/sync/plan/y.ts': "export { z } from '../z.js';",
        'main/sync/z.ts': "const x = await import('./x.js');",
        'main/sync/self.ts': "export type Self = import('./self.js').Other;",
        'main/sync/alone.ts': "import { x } from './x.js';",
      }),
    ).toEqual([
      'main/sync/plan/y.ts → main/sync/z.ts → main/sync/x.ts → main/sync/plan/y.ts',
      'main/sync/self.ts → main/sync/self.ts',
      'server/a.ts → server/b.ts → server/a.ts',
    ]);
  });

  it('names every file of a tangle larger than one circle', () => {
    expect(
      circlesAmong({
        'main/api/hub.ts': "import './a.js';\nimport './b.js';",
        'main/api/a.ts': "import './hub.js';",
        'main/api/b.ts': "import './hub.js';",
      }),
    ).toEqual(['main/api/a.ts → main/api/hub.ts → main/api/b.ts → main/api/hub.ts → main/api/a.ts']);
  });

  it('finds none in a tree, nor in files that share an import, and resolves a folder to its index', () => {
    expect(
      circlesAmong({
        'main/sync/root.ts': "import { a } from './a.js';\nimport { b } from './b.js';\nimport * as plan from './plan/index.js';",
        'main/sync/a.ts': "import type { Leaf } from './leaf.js';",
        'main/sync/b.ts': "import { leaf } from './leaf.js';\nimport { thing } from 'some-package';",
        'main/sync/leaf.ts': "import { readFileSync } from 'node:fs';",
        'main/sync/plan/index.ts': "import { leaf } from '../leaf.js';",
      }),
    ).toEqual([]);
    expect(
      circlesAmong({
        'main/sync/root.ts': "import * as plan from './plan';",
        'main/sync/plan/index.ts': "import { root } from '../root.js';",
      }),
    ).toEqual(['main/sync/plan/index.ts → main/sync/root.ts → main/sync/plan/index.ts']);
  });
});
