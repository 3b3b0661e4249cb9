/**
 * The decision table is written three times — docs/sync-rules.md, the planner, its tests — and they must name the
 * same rows: every row of the document is a RuleId, is emitted by the planner and has a `describe` of its own in
 * test/sync/plan-rules.test.ts (or, for rows outside the planner, a test that names it).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENGINE_RULE_IDS, RULE_IDS } from '../../main/sync/types.js';

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (path: string) => readFileSync(join(PROJECT, path), 'utf8');

/** The ids in the first column of the document's tables. */
function documentedRows(): string[] {
  return [...read('docs/sync-rules.md').matchAll(/^\| ([A-Za-z]+\d*) \|/gm)].map((m) => m[1]!).filter((id) => id !== 'row' && id !== 'id');
}

describe('the rule ids of the document, the planner and the tests', () => {
  it('the document has a row for every RuleId and engine rule, and no other', () => {
    expect(documentedRows().sort()).toEqual([...RULE_IDS, ...ENGINE_RULE_IDS].sort());
  });

  it('the planner emits every row of the table', () => {
    const planner = read('main/sync/plan.ts');
    const emitted = new Set([...planner.matchAll(/'([CMDN]\d)'/g)].map((m) => m[1]!));
    expect([...RULE_IDS].filter((id) => !emitted.has(id))).toEqual([]);
    expect([...emitted].filter((id) => !(RULE_IDS as readonly string[]).includes(id))).toEqual([]);
  });

  it('every row has its own describe in the table tests', () => {
    const tests = read('test/sync/plan-rules.test.ts');
    const described = new Set([...tests.matchAll(/^describe\('([CMDN]\d):/gm)].map((m) => m[1]!));
    expect([...RULE_IDS].filter((id) => !described.has(id))).toEqual([]);
  });

  it('the engine rule is tested by name', () => {
    const crash = read('test/sync/scenarios-crash.test.ts');
    for (const id of ENGINE_RULE_IDS) expect(crash).toMatch(new RegExp(`rule: '${id}'|'${id}'`));
  });
});
