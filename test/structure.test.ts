/**
 * No function of ours in main/ (the engine, the state, both front ends) or server/ is longer than MAX_LINES: one that
 * grows past that is split into named steps, so a reader follows a pass, a plan, a command or a request one step at a
 * time. A function's length runs from the line it
 * starts on to the line of its closing brace; the lines of a function inside it count toward it too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');
const ENGINE = 'main/sync';
/** The folders measured. */
const MEASURED = ['main', 'server'];

export const MAX_LINES = 80;

export interface FunctionLength {
  /** The file, relative to the repository, '/'-separated. */
  path: string;
  /** The line the function starts on, from 1. */
  line: number;
  name: string;
  lines: number;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const abs = join(dir, entry.name);
    if (entry.isDirectory()) return sources(abs);
    return /\.(ts|mts|cts)$/.test(entry.name) ? [abs] : [];
  });
}

/** What the function is called where it is declared: `Class.method`, the variable or property it is assigned to. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  const own = ts.isConstructorDeclaration(node) ? 'constructor' : node.name?.getText(source);
  if (own !== undefined) {
    const accessor = ts.isGetAccessorDeclaration(node) ? 'get ' : ts.isSetAccessorDeclaration(node) ? 'set ' : '';
    const holder = ts.isClassLike(node.parent) ? node.parent.name?.text : undefined;
    return `${holder === undefined ? '' : `${holder}.`}${accessor}${own}`;
  }
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return '(anonymous)';
}

/** Every function with a body in a source: declarations, methods, arrows, function expressions, constructors, accessors. */
export function functionLengths(path: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.end).line;
      found.push({ path, line: start + 1, name: nameOf(node, source), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export const tooLong = (functions: readonly FunctionLength[], max = MAX_LINES) => functions.filter((f) => f.lines > max);

const describeLength = (f: FunctionLength) => `${f.path}:${f.line} ${f.name} (${f.lines} lines)`;

/** A function of `lines` lines, from its header to its closing brace, as the given header opens it. */
const fn = (header: string, lines: number, close = '}') => [header, ...Array.from({ length: lines - 2 }, (_, i) => `  step${i}();`), close].join('\n');

describe(`no function in ${MEASURED.join(' or ')} is longer than ${MAX_LINES} lines`, () => {
  const files = MEASURED.flatMap((dir) => sources(join(REPO, dir))).map((abs) => relative(REPO, abs).split(sep).join('/'));
  const functions = files.flatMap((path) => functionLengths(path, readFileSync(join(REPO, path), 'utf8')));

  it('finds the functions it has to measure', () => {
    expect(files.length).toBeGreaterThan(10);
    expect(files).toContain(`${ENGINE}/plan/classify.ts`);
    const names = new Set(functions.map((f) => `${f.path} ${f.name}`));
    expect(names).toContain(`${ENGINE}/trees/apply.ts applyOutcome`);
    expect(names).toContain(`${ENGINE}/execute/executor.ts Executor.constructor`);
    expect(names).toContain(`${ENGINE}/execute/executor.ts Executor.run`);
    expect(names).toContain('main/cli/commands/sync.ts runSync');
    expect(names).toContain('main/app/app.ts runApp');
    expect(names).toContain('server/app.ts buildServer');
  });

  it('holds for every function', () => {
    const offenders = tooLong(functions).sort((a, b) => b.lines - a.lines);
    expect(offenders.map(describeLength), `split these into named steps:\n${offenders.map(describeLength).join('\n')}`).toEqual([]);
  });

  it('reports a function over the limit, and not one at it (the check can fail)', () => {
    const text = [fn('export function long() {', 90), fn('function atTheLimit() {', 80), fn('function oneOver() {', 81)].join('\n');
    expect(tooLong(functionLengths('x.ts', text)).map(describeLength)).toEqual(['x.ts:1 long (90 lines)', 'x.ts:171 oneOver (81 lines)']);
  });

  it('measures every kind of function, and counts an inner function toward the one around it', () => {
    const text = [
      fn('const arrow = async () => {', 90, '};'),
      fn('const expression = function () {', 90, '};'),
      'class Pass {',
      fn('  constructor() {', 90, '  }'),
      fn('  private async plan() {', 90, '  }'),
      fn('  get size() {', 90, '  }'),
      fn('  set size(value: number) {', 90, '  }'),
      fn('  step = () => {', 90, '  };'),
      '}',
      fn('function outer() {', 40).replace('step0();', fn('const inner = () => {', 50, '};')),
      fn('export default function () {', 90),
    ].join('\n');
    expect(tooLong(functionLengths('x.ts', text)).map((f) => `${f.name} ${f.lines}`)).toEqual([
      'arrow 90',
      'expression 90',
      'Pass.constructor 90',
      'Pass.plan 90',
      'Pass.get size 90',
      'Pass.set size 90',
      'step 90',
      'outer 89',
      '(anonymous) 90',
    ]);
  });
});
