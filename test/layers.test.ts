/**
 * DESIGN §1's layer rule, checked on the import graph of the sources: main/sync and main/api import neither
 * electron nor DOM types; only main/app and preload/ import electron; renderer/ imports nothing from main/ but
 * types (and nothing of Node or Electron at all).
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

const isElectron = (s: string) => s === 'electron' || s.startsWith('electron/');
const isDom = (s: string) => /^lib:dom/.test(s) || s === '@types/web' || s === 'web';
const rel = (file: string) => relative(REPO, file).split(sep).join('/');
const resolvedInto = (i: Import, folder: string) => i.specifier.startsWith('.') && rel(resolve(join(i.file, '..'), i.specifier)).startsWith(folder);

/** The rule's breaches among these imports, one line each. */
export function layerViolations(imports: readonly Import[]): string[] {
  const out: string[] = [];
  for (const i of imports) {
    const where = rel(i.file);
    const what = `${where} imports ${i.specifier}`;
    if (isElectron(i.specifier) && !where.startsWith('main/app/') && !where.startsWith('preload/') && !where.startsWith('test/')) out.push(`${what}: only main/app and preload may import electron`);
    if ((where.startsWith('main/sync/') || where.startsWith('main/api/')) && isDom(i.specifier)) out.push(`${what}: the engine and the API client use no DOM types`);
    if (where.startsWith('renderer/')) {
      if (resolvedInto(i, 'main/') && !i.typeOnly) out.push(`${what}: the renderer may import only types from main/`);
      if (isElectron(i.specifier) || i.specifier.startsWith('node:') || resolvedInto(i, 'preload/') || resolvedInto(i, 'server/')) out.push(`${what}: the renderer runs in a sandboxed page`);
    }
  }
  return out;
}

const ALL = ['main', 'server', 'preload', 'renderer', 'scripts'].flatMap((d) => sources(join(REPO, d)));

describe('the layer rule (DESIGN §1)', () => {
  it('finds the imports it has to judge', () => {
    const imports = ALL.flatMap((f) => importsOf(f));
    expect(imports.some((i) => rel(i.file) === 'main/app/app.ts' && i.specifier === 'electron')).toBe(true);
    expect(imports.some((i) => rel(i.file).startsWith('renderer/') && resolvedInto(i, 'main/') && i.typeOnly)).toBe(true);
    expect(ALL.filter((f) => rel(f).startsWith('main/sync/')).length).toBeGreaterThan(3);
  });

  it('holds for every source file', () => {
    expect(layerViolations(ALL.flatMap((f) => importsOf(f)))).toEqual([]);
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
    const at = (path: string, text: string) => importsOf(join(REPO, path), text);
    expect(layerViolations(at('main/sync/x.ts', "import { app } from 'electron';"))).toHaveLength(1);
    expect(layerViolations(at('main/api/x.ts', '/// <reference lib="dom" />\nexport {};'))).toHaveLength(1);
    expect(layerViolations(at('main/cli/x.ts', "const e = await import('electron');"))).toHaveLength(1);
    expect(layerViolations(at('server/x.ts', "const e = require('electron/main');"))).toHaveLength(1);
    expect(layerViolations(at('renderer/src/x.ts', "import { DesktopHost } from '../../main/app/host/host.js';"))).toHaveLength(1);
    expect(layerViolations(at('renderer/src/x.ts', "import { API_NAME, type Settings } from '../../main/app/contract.js';"))).toHaveLength(1);
    expect(layerViolations(at('renderer/src/x.ts', "import { readFileSync } from 'node:fs';"))).toHaveLength(1);
    expect(layerViolations(at('renderer/src/x.ts', "import type { Settings } from '../../main/app/contract.js';"))).toEqual([]);
    expect(layerViolations(at('renderer/src/x.ts', "import { type Settings } from '../../main/app/contract.js';"))).toEqual([]);
    expect(layerViolations(at('preload/x.ts', "import { ipcRenderer } from 'electron';"))).toEqual([]);
  });
});
