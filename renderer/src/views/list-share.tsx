import { useEffect, useState } from 'preact/hooks';
import type { Permission, SavedList } from '../../../main/contract/index.js';
import { call, CallError } from '../api.js';

/**
 * Sharing with a mailing list, picked by the name the user gave it. The service cannot list a user's lists, so the
 * app remembers the ones used or added; a new one is added by its ID and a name.
 */
export function ListShare({
  busy,
  onShare,
  permissionBoxes,
  run,
}: {
  busy: boolean;
  onShare: (list: SavedList) => void;
  permissionBoxes: preact.ComponentChildren;
  run: (work: () => Promise<string>) => Promise<void>;
}) {
  const [lists, setLists] = useState<SavedList[] | null>(null);
  const [chosen, setChosen] = useState<string>('');
  const [adding, setAdding] = useState(false);
  const [newId, setNewId] = useState('');
  const [newName, setNewName] = useState('');
  const [fields, setFields] = useState<Record<string, string>>({});

  useEffect(() => {
    void call('lists:list').then((l) => {
      setLists(l);
      setChosen(l[0]?.id ?? '');
      setAdding(l.length === 0);
    });
  }, []);

  const add = (e: Event) => {
    e.preventDefault();
    setFields({});
    void run(async () => {
      try {
        const id = newId.trim().toLowerCase();
        const next = await call('lists:save', { id, name: newName.trim() });
        setLists(next);
        setChosen(id);
        setAdding(false);
        setNewId('');
        setNewName('');
        const saved = next.find((l) => l.id === id);
        return `Added ${newName.trim()}${saved && saved.subscribers !== null ? ` (${saved.subscribers} subscribed)` : ''}.`;
      } catch (error) {
        if (error instanceof CallError) setFields(error.fields);
        throw error;
      }
    });
  };
  const forget = (list: SavedList) =>
    void run(async () => {
      const next = await call('lists:forget', { id: list.id });
      setLists(next);
      if (chosen === list.id) setChosen(next[0]?.id ?? '');
      if (next.length === 0) setAdding(true);
      return `${list.name} removed from your lists. The list itself is unchanged.`;
    });
  const share = (e: Event) => {
    e.preventDefault();
    const list = lists?.find((l) => l.id === chosen);
    if (list) onShare(list);
  };

  if (lists === null) return <p class="muted">Loading…</p>;
  return (
    <>
      {lists.length > 0 ? (
        <form onSubmit={share} class="inline-form">
          <fieldset class="list-choice">
            <legend>Your mailing lists</legend>
            <ul class="saved-lists" data-testid="saved-lists">
              {lists.map((l) => (
                <li key={l.id}>
                  <input type="radio" name="share-list" id={`list-${l.id}`} value={l.id} checked={chosen === l.id} onChange={() => setChosen(l.id)} />
                  <label for={`list-${l.id}`}>
                    <span class="file-title">{l.name}</span>{' '}
                    <span class="muted small">
                      {l.subscribers === null ? 'subscribers unknown' : `${l.subscribers} subscribed`} · ID {l.id}
                    </span>
                  </label>
                  <button type="button" class="link-button small" onClick={() => forget(l)} aria-label={`Remove ${l.name} from your lists`} disabled={busy}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          </fieldset>
          {permissionBoxes}
          <div class="actions">
            <button type="submit" class="primary" disabled={busy || !chosen}>
              Share with list
            </button>
            {!adding ? (
              <button type="button" onClick={() => setAdding(true)}>
                Add a list…
              </button>
            ) : null}
          </div>
        </form>
      ) : (
        <p class="muted">You have not shared with a mailing list yet. Add one by its ID and a name you will recognise.</p>
      )}
      {adding ? (
        <form onSubmit={add} class="inline-form add-list" aria-labelledby="add-list-title">
          <h4 id="add-list-title">Add a mailing list</h4>
          <div class="grid">
            <div class="field">
              <label for="add-list-name">Name</label>
              <input
                id="add-list-name"
                type="text"
                value={newName}
                placeholder="e.g. Project team"
                onInput={(e) => setNewName((e.currentTarget as HTMLInputElement).value)}
                aria-invalid={fields.name ? 'true' : undefined}
                aria-describedby={fields.name ? 'add-list-name-error' : undefined}
              />
              {fields.name ? (
                <p class="field-error" id="add-list-name-error">
                  {fields.name}
                </p>
              ) : null}
            </div>
            <div class="field">
              <label for="add-list-id">List ID</label>
              <input
                id="add-list-id"
                type="text"
                value={newId}
                spellcheck={false}
                autocomplete="off"
                onInput={(e) => setNewId((e.currentTarget as HTMLInputElement).value)}
                aria-invalid={fields.id ? 'true' : undefined}
                aria-describedby="add-list-id-hint"
              />
              <p class={fields.id ? 'field-error' : 'hint'} id="add-list-id-hint">
                {fields.id ?? '13 characters, as shown where your lists are managed.'}
              </p>
            </div>
          </div>
          <div class="actions">
            <button type="submit" disabled={busy || newId.trim() === '' || newName.trim() === ''}>
              Add list
            </button>
            {lists.length > 0 ? (
              <button type="button" class="link-button" onClick={() => setAdding(false)}>
                Cancel
              </button>
            ) : null}
          </div>
        </form>
      ) : null}
    </>
  );
}
