/**
 * The decision table is written three times — docs/sync-rules.md, the planner, its tests — and they must name the
 * same rows: every row of the document is a RuleId, is emitted by the planner and has a `describe` of its own in
 * test/sync/plan-rules.test.ts (or, for rows outside the planner, a test that names it). Within the planner, every
 * row has a row function that emits its id and no other, and the table's cells apply only the rows they name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LOCAL_STATES, REMOTE_STATES } from '../../main/sync/plan/classify.js';
import { rows } from '../../main/sync/plan/rows.js';
import { ALL_CELLS, NEW_LOCAL, NEW_REMOTE, SYNCED_TABLE } from '../../main/sync/plan/table.js';
import { ENGINE_RULE_IDS, RULE_IDS, SELECTION_RULE_IDS, SHARED_RULE_IDS } from '../../main/sync/model/types.js';

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (path: string) => readFileSync(join(PROJECT, path), 'utf8');

/** The planner's source: main/sync/plan/, its table and the stages around it. */
const plannerSource = () =>
  readdirSync(join(PROJECT, 'main/sync/plan'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => read(`main/sync/plan/${f}`))
    .join('\n');

/** The row ids a compiled function's source names, as strings ('C1') or as row functions (rows.C1). */
const quotedIds = (fn: unknown) => [...String(fn).matchAll(/["'`]([CMDN]\d)["'`]/g)].map((m) => m[1]!);
const rowCalls = (fn: unknown) => [...String(fn).matchAll(/\brows\.([CMDN]\d)\b/g)].map((m) => m[1]!);

/** The ids in the first column of the document's tables. */
function documentedRows(): string[] {
  return [...read('docs/sync-rules.md').matchAll(/^\| ([A-Za-z]+\d*) \|/gm)].map((m) => m[1]!).filter((id) => id !== 'row' && id !== 'id');
}

describe('the rule ids of the document, the planner and the tests', () => {
  it('the document has a row for every RuleId and engine rule, and no other', () => {
    expect(documentedRows().sort()).toEqual([...RULE_IDS, ...ENGINE_RULE_IDS, ...SELECTION_RULE_IDS, ...SHARED_RULE_IDS].sort());
  });

  it('the planner emits every row of the table', () => {
    const planner = plannerSource();
    const emitted = new Set([...planner.matchAll(/'([CMDN]\d)'/g)].map((m) => m[1]!));
    expect([...RULE_IDS].filter((id) => !emitted.has(id))).toEqual([]);
    expect([...emitted].filter((id) => !(RULE_IDS as readonly string[]).includes(id))).toEqual([]);
  });

  it('every row has a row function, which emits its own id and no other', () => {
    expect(Object.keys(rows).sort()).toEqual([...RULE_IDS].sort());
    for (const id of RULE_IDS) {
      const named = quotedIds(rows[id]);
      expect(named.length, `row function ${id} names its id`).toBeGreaterThan(0);
      expect(
        named.filter((other) => other !== id),
        `row function ${id} emits another row's id`,
      ).toEqual([]);
    }
  });

  it('the table has a cell for every (local state, remote state); the cells apply every row, each only rows it names', () => {
    for (const localState of LOCAL_STATES) {
      for (const remoteState of REMOTE_STATES) expect(SYNCED_TABLE[localState][remoteState], `${localState} × ${remoteState}`).toBeDefined();
    }
    expect(ALL_CELLS).toContain(NEW_REMOTE);
    expect(ALL_CELLS).toContain(NEW_LOCAL);
    const named = new Set(ALL_CELLS.flatMap((cell) => cell.rows));
    expect([...RULE_IDS].filter((id) => !named.has(id))).toEqual([]);
    for (const cell of ALL_CELLS) {
      const called = rowCalls(cell.decide);
      expect(called.filter((id) => !cell.rows.includes(id as (typeof RULE_IDS)[number])), `cell ${cell.rows.join(',')}`).toEqual([]);
    }
  });

  it('every row has its own describe in the table tests', () => {
    const tests = read('test/sync/plan-rules.test.ts');
    const described = new Set([...tests.matchAll(/^describe\('([CMDN]\d):/gm)].map((m) => m[1]!));
    expect([...RULE_IDS].filter((id) => !described.has(id))).toEqual([]);
  });

  it('selective sync names each of its rows, and each has its own describe in its tests', () => {
    const source = read('main/sync/plan/selective.ts');
    const tests = read('test/sync/selective-rules.test.ts');
    const described = new Set([...tests.matchAll(/^describe\('(E\d):/gm)].map((m) => m[1]!));
    for (const id of SELECTION_RULE_IDS) {
      expect(source, `selective.ts names ${id}`).toMatch(new RegExp(`\\b${id}\\b`));
      expect(described.has(id), `a describe for ${id}`).toBe(true);
    }
  });

  it('shared with me names each of its rows, and each has its own describe in its tests', () => {
    const source = read('main/sync/plan/access.ts');
    const tests = read('test/sync/shared-rules.test.ts');
    const described = new Set([...tests.matchAll(/^describe\('(S\d):/gm)].map((m) => m[1]!));
    for (const id of SHARED_RULE_IDS) {
      expect(described.has(id), `a describe for ${id}`).toBe(true);
      expect(source, `access.ts names ${id}`).toMatch(new RegExp(`'${id}'`));
    }
  });

  it('the rows of the table, of selection and of access are emitted only by the planner (main/sync/plan/)', () => {
    const ids = [...RULE_IDS, ...SELECTION_RULE_IDS, ...SHARED_RULE_IDS].join('|');
    const emits = new RegExp(`rule:\\s*['"\`](${ids})['"\`]`);
    const walk = (dir: string): string[] =>
      readdirSync(join(PROJECT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : []));
    const outside = walk('main').filter((f) => !f.startsWith('main/sync/plan/'));
    expect(outside.length).toBeGreaterThan(50);
    expect(outside.filter((f) => emits.test(read(f)))).toEqual([]);
    // The check finds an emission where there is one.
    expect(emits.test(read('main/sync/plan/rows.ts'))).toBe(true);
  });

  it('the engine rule is tested by name', () => {
    const crash = read('test/sync/scenarios-crash.test.ts');
    for (const id of ENGINE_RULE_IDS) expect(crash).toMatch(new RegExp(`rule: '${id}'|'${id}'`));
  });
});
