import { useEffect, useState } from 'preact/hooks';
import type { ConflictItem, ErrorItem } from '../../../main/app/contract.js';
import { call, subscribe } from '../api.js';
import { formatTime } from '../format.js';

export function ProblemsView() {
  const [conflicts, setConflicts] = useState<ConflictItem[] | null>(null);
  const [errors, setErrors] = useState<ErrorItem[] | null>(null);
  useEffect(() => {
    void call('conflicts:list').then(setConflicts);
    void call('errors:list').then(setErrors);
    const offs = [
      subscribe('conflict', (c) => setConflicts((list) => [c, ...(list ?? [])])),
      subscribe('item-error', (e) => setErrors((list) => [e, ...(list ?? []).filter((x) => !(x.root === e.root && x.path === e.path && x.message === e.message))])),
    ];
    return () => offs.forEach((off) => off());
  }, []);
  return (
    <section aria-labelledby="problems-title">
      <h2 id="problems-title" tabIndex={-1}>
        Conflicts and errors
      </h2>
      <section aria-labelledby="conflicts-title">
        <h3 id="conflicts-title">Conflicts</h3>
        {conflicts === null ? null : conflicts.length === 0 ? (
          <p class="muted">No conflicts.</p>
        ) : (
          <ul class="list" data-testid="conflict-list">
            {conflicts.map((c) => (
              <li key={c.id}>
                <span>
                  <span class="path">{c.path}</span> changed here and on the drive. Both versions were kept: it now holds the drive’s version, and
                  yours is <span class="path">{c.copyPath}</span>.
                </span>
                <time class="muted small" dateTime={c.at}>
                  {formatTime(c.at)}
                </time>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="errors-title">
        <h3 id="errors-title">Errors</h3>
        {errors === null ? null : errors.length === 0 ? (
          <p class="muted">No errors.</p>
        ) : (
          <>
            <ul class="list" data-testid="error-list">
              {errors.map((e) => (
                <li key={e.id}>
                  <span class="path">{e.path || e.root}</span>: {e.message} <time class="muted small" dateTime={e.at}>{formatTime(e.at)}</time>
                </li>
              ))}
            </ul>
            <button
              type="button"
              onClick={() => {
                void call('errors:clear').then(() => setErrors([]));
              }}
            >
              Clear errors
            </button>
          </>
        )}
      </section>
    </section>
  );
}
