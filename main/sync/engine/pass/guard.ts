/**
 * The mass-delete guard, one step of a pass: before deletions go out, a burst that would delete more than the user
 * would expect stops the pass and asks (docs/design.md §3). The user's answers are the engine's (it takes them as
 * requests); a pass gets them as they stood when it began and gives back what it did with them.
 */
import type { DriveClient } from '../../../api/client.js';
import { deletionQuestion, keepDeletions, type DeletionQuestion } from '../deletions.js';
import type { Mirror } from '../../trees/mirror.js';
import { excludedTakenBy, type SelectedPlan } from '../../plan/selective.js';
import type { Operation, RemoteId } from '../../model/types.js';
import type { DeletionAnswers, FolderTrees, PassPorts } from './inputs.js';


export const NO_ANSWERS: Readonly<DeletionAnswers> = { askedFor: null, consent: false, keep: false };

/**
 * The engine's answers once a pass that began with `before` left `after` (`guarded`: it weighed deletions), given
 * what the user said meanwhile (`now`): a consent or refusal the pass used is spent; one given during the pass is for
 * the next. The count asked about is the pass's when it weighed deletions (it asked, or what it asked about went
 * through), unless the user changed it meanwhile (a resume forgets it, so the question is asked again).
 */
export function answersAfter(before: Readonly<DeletionAnswers>, after: Readonly<DeletionAnswers>, guarded: boolean, now: Readonly<DeletionAnswers>): DeletionAnswers {
  return {
    askedFor: guarded && now.askedFor === before.askedFor ? after.askedFor : now.askedFor,
    consent: before.consent && !after.consent ? false : now.consent,
    keep: before.keep && !after.keep ? false : now.keep,
  };
}

/** Deletions within this window count together for the mass-delete guard (a folder deleted piece by piece). */
const DELETION_WINDOW_MS = 10 * 60 * 1000;

/** The mass-delete guard: more than 500 items, or more than half of the synced ones when at least 10 would go. */
export function deletionNeedsConsent(deletions: number, synced: number, max = 500): boolean {
  return deletions > max || (deletions >= 10 && deletions > synced / 2);
}

/** One step's operations, as the guard weighs them. */
export interface GuardStep {
  operations: readonly Operation[];
  plan: SelectedPlan;
  /** Deletions the disappearance hold keeps back this step (they are not made yet). */
  heldDeletions: number;
  trees: FolderTrees;
  excluded: ReadonlySet<RemoteId>;
  /** No pass has reached its end since the engine started: deletions found now were made while nothing ran. */
  firstPass: boolean;
  now: number;
}

/**
 * Go on with the step; the deletions were undone as the user asked (plan again); or the user is asked (the pass ends,
 * and its result carries the question when it was not asked before).
 */
export type GuardVerdict = { kind: 'go' } | { kind: 'kept' } | { kind: 'asked'; count: number; question?: DeletionQuestion };

export class DeletionGuard {
  /** Deletions carried out lately, so a burst that arrives in small pieces still meets the guard. */
  private recent: Array<{ at: number; count: number }> = [];

  constructor(
    private readonly mirror: Mirror,
    private readonly client: DriveClient,
    private readonly maxDeletions?: number,
  ) {}

  /** Weighs one step; `answers` is the pass's copy of the user's answers, updated as the guard uses them. */
  async check(step: GuardStep, answers: DeletionAnswers, ports: Pick<PassPorts, 'tell'>): Promise<GuardVerdict> {
    const { operations, plan, trees } = step;
    const deletions = plan.deletions - step.heldDeletions;
    this.recent = this.recent.filter((d) => step.now - d.at < DELETION_WINDOW_MS);
    const recent = this.recent.reduce((sum, d) => sum + d.count, 0);
    const count = deletions + recent;
    // A remote trash takes along what excluded folders hold inside it, which this computer cannot see: asked first.
    const trashed = new Set(operations.flatMap((op) => (op.kind === 'trash-remote' ? [op.remoteId] : [])));
    const excluded = plan.outside.size > 0 ? excludedTakenBy(trees.remote, plan.outside, trashed, step.excluded) : { items: 0, bytes: 0 };
    const guarded = (deletions > 0 && deletionNeedsConsent(count, trees.base.size + recent, this.maxDeletions)) || excluded.items > 0;
    if (guarded && !answers.consent) {
      if (answers.keep) {
        // The user said no: the deletions are undone where they were made, and the pass plans again.
        const kept = await keepDeletions(operations, trees, this.mirror, this.client);
        answers.keep = false;
        answers.askedFor = null;
        this.recent = [];
        const message = `kept ${kept} item${kept === 1 ? '' : 's'}: what was deleted on the drive is restored there, and what was deleted here comes back from the drive`;
        ports.tell({ kind: 'notice', message });
        return { kind: 'kept' };
      }
      const asked = answers.askedFor === count;
      answers.askedFor = count;
      if (asked) return { kind: 'asked', count };
      const question = deletionQuestion(operations, trees, trees.base.size + recent, step.firstPass, plan.outside);
      return { kind: 'asked', count, question: { ...question, count, ...(excluded.items > 0 ? { excluded } : {}) } };
    }
    // Deletions asked about and held back this step by the disappearance hold (the folder is still changing) are
    // still the question: it stands until the guard weighs them again.
    if (!guarded && step.heldDeletions > 0 && answers.askedFor !== null) return { kind: 'asked', count: answers.askedFor };
    answers.askedFor = null;
    if (answers.consent) this.recent = [];
    else if (deletions > 0) this.recent.push({ at: step.now, count: deletions });
    return { kind: 'go' };
  }
}
