import { useEffect, useRef, useState } from 'preact/hooks';
import type { DeletionQuestion } from '../../../main/contract/index.js';
import { call, messageOf } from '../api.js';
import { folderName } from '../format.js';
import { PathText } from '../path-text.js';

/** The mass-delete question: nothing is deleted until the user says so. */
export function DeletionPrompt({ pending }: { pending: DeletionQuestion[] }) {
  const question = pending[0];
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (question && !dialog.open) dialog.showModal();
    if (!question && dialog.open) dialog.close();
  }, [question]);
  const answer = async (confirm: boolean) => {
    if (!question) return;
    try {
      await call('deletions:answer', { root: question.root, confirm });
      setError(null);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  return (
    <dialog ref={ref} role="alertdialog" aria-labelledby="deletions-title" aria-describedby="deletions-text" onCancel={(e) => e.preventDefault()}>
      {question ? (
        <>
          <h2 id="deletions-title">Delete {question.count} items?</h2>
          <p id="deletions-text">
            A sync of <strong>{folderName(question.root)}</strong> would delete {question.count} of its {question.synced} synced items. Deleted files go
            to the trash. Nothing is deleted until you choose.
          </p>
          <p class="muted small">
            <PathText path={question.root} />
          </p>
          {error ? <p role="alert">{error}</p> : null}
          <div class="actions">
            <button type="button" onClick={() => void answer(false)} autofocus>
              Keep them and pause
            </button>
            <button type="button" class="danger" onClick={() => void answer(true)}>
              Delete {question.count} items
            </button>
          </div>
        </>
      ) : null}
    </dialog>
  );
}
