import { useEffect, useRef, useState } from 'preact/hooks';
import type { DeletionAnswer, DeletionGroup, DeletionQuestion } from '../../../main/contract/index.js';
import { call, messageOf } from '../api.js';
import { folderName, formatBytes } from '../format.js';
import { PathText } from '../path-text.js';

const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;

/** Items listed before "Show all". */
const FIRST = 5;

function Group({ group }: { group: DeletionGroup }) {
  const [all, setAll] = useState(false);
  const shown = all ? group.items : group.items.slice(0, FIRST);
  const title =
    group.where === 'here'
      ? `${items(group.count)} would be deleted from this computer (to its trash)`
      : `${items(group.count)} would be deleted from the drive (to its trash)`;
  return (
    <section aria-label={title}>
      <h3>{title}</h3>
      <p class="muted small">
        Why: {group.why}. {formatBytes(group.bytes)} in all.
      </p>
      <ul class="deletion-items">
        {shown.map((item) => (
          <li key={item.path}>
            <PathText path={item.type === 'folder' ? `${item.path}/` : item.path} />
          </li>
        ))}
      </ul>
      {group.items.length > FIRST ? (
        <button type="button" class="link-button" onClick={() => setAll(!all)} aria-expanded={all}>
          {all ? 'Show fewer' : `Show all ${group.items.length}`}
        </button>
      ) : null}
    </section>
  );
}

/**
 * The mass-delete question: nothing is deleted until the user says so. It names what would be deleted, where and why,
 * and offers three answers: delete them, keep them (put back where they were deleted), decide later (the deletions
 * wait, and everything else syncs on). A question left for later is offered again by a line above the views.
 */
export function DeletionPrompt({ pending }: { pending: DeletionQuestion[] }) {
  /** The folder whose question the person opened again. */
  const [reviewing, setReviewing] = useState<string | null>(null);
  const question = pending.find((q) => q.root === reviewing) ?? pending.find((q) => !q.later);
  const waiting = pending.filter((q) => q.later && q !== question);
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (question && !dialog.open) dialog.showModal();
    if (!question && dialog.open) dialog.close();
  }, [question]);
  const answer = async (choice: DeletionAnswer) => {
    if (!question) return;
    try {
      await call('deletions:answer', { root: question.root, answer: choice });
      setReviewing(null);
      setError(null);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  return (
    <>
      {waiting.length > 0 ? (
        <div class="deletions-waiting" role="status" data-testid="deletions-waiting">
          {waiting.map((q) => (
            <p key={q.root}>
              {items(q.count)} in <strong>{folderName(q.root)}</strong> wait for your answer before they are deleted; everything else goes on syncing.{' '}
              <button type="button" class="link-button" onClick={() => setReviewing(q.root)}>
                Review the deletions in {folderName(q.root)}
              </button>
            </p>
          ))}
        </div>
      ) : null}
      <dialog ref={ref} role="alertdialog" aria-labelledby="deletions-title" aria-describedby="deletions-text" onCancel={(e) => e.preventDefault()}>
        {question ? (
          <>
            <h2 id="deletions-title">Delete {question.count} items?</h2>
            <p id="deletions-text">
              A sync of <strong>{folderName(question.root)}</strong> would delete {question.count} of its {question.synced} synced items (
              {formatBytes(question.bytes)}). Nothing is deleted until you choose.
            </p>
            <p class="muted small">
              <PathText path={question.root} />
            </p>
            <div class="deletion-groups">
              {question.groups.map((group) => (
                <Group key={group.where} group={group} />
              ))}
            </div>
            {question.excluded && question.excluded.items > 0 ? (
              <p class="deletion-excluded" data-testid="deletions-excluded">
                Also gone from the drive: {items(question.excluded.items)} ({formatBytes(question.excluded.bytes)}) inside folders this computer leaves
                out. They are not here, so they are not listed above; they go to the drive’s trash with the folders that hold them.
              </p>
            ) : null}
            {error ? <p role="alert">{error}</p> : null}
            <div class="actions">
              <button type="button" onClick={() => void answer('keep')} autofocus>
                Keep them
              </button>
              <button type="button" onClick={() => void answer('later')}>
                Decide later
              </button>
              <button type="button" class="danger" onClick={() => void answer('delete')}>
                Delete {question.count} items
              </button>
            </div>
            <p class="muted small">
              Keep them: what was deleted on the drive is restored there, what was deleted here comes back from the drive. Decide later: nothing is
              deleted until you answer, and everything else goes on syncing.
            </p>
          </>
        ) : null}
      </dialog>
    </>
  );
}
