import { useEffect, useState } from 'preact/hooks';
import type { ActivityItem } from '../../../main/contract/index.js';
import { call, subscribe } from '../api.js';
import { formatTime, formatWhen } from '../format.js';
import { PathText } from '../path-text.js';

const QUIET = new Set(['record', 'merge', 'forget']);

export function ActivityView() {
  const [items, setItems] = useState<ActivityItem[] | null>(null);
  const [showAll, setShowAll] = useState(false);
  useEffect(() => {
    void call('activity:list').then(setItems);
    return subscribe('activity', (item) => setItems((list) => [item, ...(list ?? [])].slice(0, 200)));
  }, []);
  const shown = (items ?? []).filter((i) => showAll || !QUIET.has(i.kind));
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title" tabIndex={-1}>
        Activity
      </h2>
      <div class="field checkbox">
        <input id="activity-all" type="checkbox" checked={showAll} onChange={(e) => setShowAll((e.currentTarget as HTMLInputElement).checked)} />
        <label for="activity-all">Also show bookkeeping (items recorded as already in sync)</label>
      </div>
      {items === null ? (
        <p class="muted">Loading…</p>
      ) : shown.length === 0 ? (
        <p class="muted">Nothing has happened yet.</p>
      ) : (
        <ul class="list" aria-label="Recent activity" data-testid="activity-list">
          {shown.map((item) => (
            <li key={item.id} class={`kind-${item.kind}`}>
              <span class="what">{item.description}</span> <PathText path={item.path} />
              <time class="muted small" dateTime={item.at} title={formatTime(item.at)}>
                {formatWhen(item.at)}
              </time>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
