/**
 * The tests wait and make temp folders one way each: `eventually` (helpers/eventually.ts) for what happens in its own
 * time, `tempDir` (helpers/temp.ts) for a folder of their own. A test file that writes its own polling loop or calls
 * mkdtemp fails here, so the next one reads the same words everywhere. The run's scratch folder (global-setup.ts) and
 * the benchmarks' (bench/common.ts, under their own scratch root) are where those are made.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, holds } from './helpers/eventually.js';

const TEST = resolve(import.meta.dirname);

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.(ts|mts|mjs)$/.test(e.name) ? [join(dir, e.name)] : []));
const rel = (abs: string) => relative(TEST, abs).split(sep).join('/');

/** A function of its own whose name says it waits: `until`, `eventually`, `waitFor`, `waitUntil`. */
const OWN_WAIT = /(?:function\s+|const\s+)(until|eventually|waitFor|waitUntil)\b\s*(?:<[^>]*>)?\s*(?:=|\()/;
const MKDTEMP = /\bmkdtemp(?:Sync)?\(/;

export function offenders(sources: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, text] of sources) {
    if (path !== 'helpers/eventually.ts' && OWN_WAIT.test(text)) out.push(`${path}: a wait of its own (use helpers/eventually.ts)`);
    if (!['helpers/temp.ts', 'global-setup.ts', 'bench/common.ts'].includes(path) && MKDTEMP.test(text)) out.push(`${path}: mkdtemp (use helpers/temp.ts)`);
  }
  return out;
}

describe('one way to wait and one way to make a temp folder', () => {
  it('holds for every test file', () => {
    // This file names what it looks for in its fixtures.
    const sources = new Map(files(TEST).filter((f) => rel(f) !== 'one-way-to-wait.test.ts').map((f) => [rel(f), readFileSync(f, 'utf8')]));
    expect(sources.size).toBeGreaterThan(100);
    expect(offenders(sources)).toEqual([]);
  });

  it('finds a wait or a temp folder of a file\'s own (the check can fail)', () => {
    const found = offenders(
      new Map([
        ['a.test.ts', 'async function until(check: () => boolean) {}'],
        ['b.test.ts', 'const eventually = async <T>(probe: () => T) => probe();'],
        ['c.test.ts', "const dir = mkdtempSync(join(tmpdir(), 'x-'));"],
        ['d.test.ts', "import { eventually } from './helpers/eventually.js';\nawait eventually(() => true);"],
      ]),
    );
    expect(found).toEqual(['a.test.ts: a wait of its own (use helpers/eventually.ts)', 'b.test.ts: a wait of its own (use helpers/eventually.ts)', 'c.test.ts: mkdtemp (use helpers/temp.ts)']);
  });
});

describe('eventually', () => {
  it('gives the first value found, looking again until then', async () => {
    let n = 0;
    expect(await eventually(() => (++n >= 3 ? `found at ${n}` : undefined), { every: 1 })).toBe('found at 3');
    let m = 0;
    expect(await eventually(() => ++m, (v) => v === 4, { every: 1 })).toBe(4);
  });

  it('takes a probe that throws as not found yet', async () => {
    let n = 0;
    const probe = () => {
      if (++n < 3) throw new Error('not downloaded yet');
      return true;
    };
    expect(await eventually(probe, { every: 1 })).toBe(true);
  });

  it('fails with what it waited for and what it last saw', async () => {
    await expect(eventually(() => ({ files: 2 }), (v) => v.files === 3, { within: 30, every: 5, what: 'three files' })).rejects.toThrow(/^not within 30 ms: three files \(it was \{"files":2\}\)$/);
    await expect(eventually(() => { throw new Error('ENOENT'); }, { within: 20, every: 5, what: () => 'read then' })).rejects.toThrow('not within 20 ms: read then (it failed: ENOENT)');
    expect(await holds(() => false, { within: 20, every: 5 })).toBe(false);
    expect(await holds(() => true)).toBe(true);
  });
});
