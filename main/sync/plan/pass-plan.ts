/**
 * One pass's plan, its stages in order: the scope (only what a remote delta touched, or a slice of what is new here:
 * scope.ts), the selection (folders left out: selective.ts, rows E), the table (plan.ts, rows C, M, D, N) and the rows
 * of access (what the account may do in what is shared with it: access.ts, rows S). A pass asks for this and nothing
 * else of the planner.
 */
import type { NameRules } from '../model/names.js';
import type { SharedArea, SharedPlace } from '../model/shared-area.js';
import type { LocalItem, RelPath, Trees } from '../model/types.js';
import { rowsOfAccess } from './access.js';
import { changeScope, scopedTrees, type PlanScope } from './scope.js';
import { planSelected, quietPlan, type SelectedPlan, type Selection } from './selective.js';

/**
 * Items new here planned at a time when they are most of what differs (an initial sync): a slice's operations and
 * planning, not a million's, are held at once (scope.ts).
 */
export const PLAN_SLICE = 50_000;

export interface PassPlanInput {
  trees: Trees;
  /** A remote delta's scope, `changes` (what differs from base, found again for this plan) or null (the whole trees). */
  scope: PlanScope | 'changes' | null;
  selection: Selection;
  /** What is shared with the account and where it is placed; `inPlay` while base still holds a shared area. */
  shared: { area: SharedArea; place: SharedPlace | null; inPlay: boolean };
  names: NameRules;
  isIgnored: (path: RelPath, type: LocalItem['type']) => boolean;
  /** Plan the whole of what is new here, not a slice of it. */
  whole?: boolean;
}

export interface PassPlan {
  plan: SelectedPlan;
  /** The plan holds a slice of what is new here, not all of it: more plans follow. */
  sliced: boolean;
  /** Synced items the plan looked at, when it was cut to a scope. */
  scopedSize: number | null;
}

export function planPass(input: PassPlanInput): PassPlan {
  const { trees: whole, selection, shared } = input;
  const options = { isIgnored: input.isIgnored, ...input.names };
  const scope = input.scope === 'changes' ? changeScope(whole, { ...input.names, ...(input.whole ? {} : { slice: PLAN_SLICE }) }) : input.scope;
  let sliced = scope !== null && scope !== 'in-sync' && 'slice' in scope;
  let trees = scope === null || scope === 'in-sync' ? whole : scopedTrees(whole, scope);
  let selected = scope === 'in-sync' ? quietPlan() : planSelected(trees, selection, { ...options, slice: sliced });
  // A slice with nothing to do (what it holds is left out) is not the end: the whole trees say what is.
  if (sliced && selected.operations.length === 0) {
    sliced = false;
    trees = whole;
    selected = planSelected(trees, selection, options);
  }
  const scopedSize = scope === 'in-sync' ? 0 : trees !== whole ? trees.base.size : null;
  const plan = shared.place || shared.inPlay ? rowsOfAccess(selected, whole, shared.area, shared.place ?? { folder: '', me: undefined }) : selected;
  return { plan, sliced, scopedSize };
}
