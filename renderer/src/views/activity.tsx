import { useEffect, useState } from 'preact/hooks';
import type { ActivityItem } from '../../../main/contract/index.js';
import { call, messageOf, subscribe } from '../api.js';
import { formatTime, formatWhen } from '../format.js';
import { PathText } from '../path-text.js';

const QUIET = new Set(['record', 'merge', 'forget']);
const DELETIONS = new Set(['trash-remote', 'trash-local']);

/** A deletion that can be undone: its entry is in the drive's trash. */
const restorable = (item: ActivityItem): item is ActivityItem & { remoteId: number } => DELETIONS.has(item.kind) && item.remoteId !== undefined;

export function ActivityView() {
  const [items, setItems] = useState<ActivityItem[] | null>(null);
  const [showAll, setShowAll] = useState(false);
  /** Deletions restored from this view, by activity id. */
  const [restored, setRestored] = useState<ReadonlySet<number>>(new Set());
  const [message, setMessage] = useState<string>('');
  useEffect(() => {
    void call('activity:list').then(setItems);
    return subscribe('activity', (item) => setItems((list) => [item, ...(list ?? [])].slice(0, 200)));
  }, []);
  const shown = (items ?? []).filter((i) => showAll || !QUIET.has(i.kind));
  const deletions = shown.filter((i) => restorable(i) && !restored.has(i.id)) as Array<ActivityItem & { remoteId: number }>;
  /** Brings deletions of one folder back from the drive's trash; the folder syncs them back. */
  const restore = async (group: Array<ActivityItem & { remoteId: number }>) => {
    const byRoot = new Map<string, Array<ActivityItem & { remoteId: number }>>();
    for (const item of group) byRoot.set(item.root, [...(byRoot.get(item.root) ?? []), item]);
    try {
      for (const [root, list] of byRoot) await call('trash:restore', { root, remoteIds: list.map((i) => i.remoteId) });
      setRestored((done) => new Set([...done, ...group.map((i) => i.id)]));
      setMessage(group.length === 1 ? `${group[0]!.path} is restored: it comes back here and on the drive.` : `${group.length} items are restored: they come back here and on the drive.`);
    } catch (e) {
      setMessage(messageOf(e));
    }
  };
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title" tabIndex={-1}>
        Activity
      </h2>
      <div class="field checkbox">
        <input id="activity-all" type="checkbox" checked={showAll} onChange={(e) => setShowAll((e.currentTarget as HTMLInputElement).checked)} />
        <label for="activity-all">Also show items that needed no transfer (already the same on both sides)</label>
      </div>
      <p class="inline-message" role="status" data-testid="activity-message">
        {message}
      </p>
      {deletions.length > 1 ? (
        <p>
          <button type="button" onClick={() => void restore(deletions)}>
            Restore all {deletions.length} deletions
          </button>
        </p>
      ) : null}
      {items === null ? (
        <p class="muted">Loading…</p>
      ) : shown.length === 0 ? (
        <p class="muted">Nothing has happened yet.</p>
      ) : (
        <ul class="list" aria-label="Recent activity" data-testid="activity-list">
          {shown.map((item) => (
            <li key={item.id} class={`kind-${item.kind}`}>
              <span class="what">{item.description}</span> {item.path ? <PathText path={item.path} /> : null}
              <time class="muted small" dateTime={item.at} title={formatTime(item.at)}>
                {formatWhen(item.at)}
              </time>
              {restorable(item) ? (
                restored.has(item.id) ? (
                  <span class="muted small"> Restored</span>
                ) : (
                  <span class="row-actions">
                    <button type="button" aria-label={`Restore ${item.path}`} onClick={() => void restore([item])}>
                      Restore
                    </button>
                  </span>
                )
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
