import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { EntryMarkers, EntryPage, OpenView, SyncedEntry } from '../../../main/contract/index.js';
import { call, messageOf } from '../api.js';
import { folderName, formatBytes, formatWhen } from '../format.js';
import { Icon } from '../icons.js';
import { ItemStateMark } from '../item-state.js';
import { ShareDialog } from './share-dialog.js';
import { VersionsDialog } from './versions-dialog.js';
import { ViewMessages } from '../view-messages.js';

/** A folder with more entries than this shows only the rows in sight (and a few either side) as it scrolls. */
const ROWS_IN_FULL = 300;
/** Rows kept beyond each edge of the visible ones, so a short scroll or a Tab shows rows already there. */
const OVERSCAN = 15;
/**
 * Rows asked of the host at a time (`entries:browse`), at multiples of it: a folder rendered whole comes in one call;
 * a bigger one a page at a time as its rows come in sight, so what crosses the bridge does not grow with the folder.
 */
const PAGE = ROWS_IN_FULL;

/** What is loaded of the folder shown: how many entries it has, and the pages of them that came (by page number). */
interface Listing {
  /** The folder: its synced folder and path, a line apart. */
  key: string;
  total: number;
  pages: Map<number, SyncedEntry[]>;
}

/**
 * Which rows of a long list to render: those in sight of the scrolling box, by the height of a rendered row (a
 * windowed list keeps each row to one line). A short list renders whole.
 */
function useRowWindow(count: number, list: string) {
  const box = useRef<HTMLDivElement | null>(null);
  const [scrollTop, setScrollTop] = useState(0);
  // Another folder opens at its top.
  useEffect(() => setScrollTop(0), [list]);
  const [height, setHeight] = useState(600);
  const [rowPx, setRowPx] = useState(40);
  const windowed = count > ROWS_IN_FULL;
  useLayoutEffect(() => {
    const el = box.current;
    if (!windowed || !el) return;
    setHeight(el.clientHeight);
    const row = el.querySelector<HTMLElement>('tbody tr.entry:not(.loading)');
    if (row && row.offsetHeight > 0 && row.offsetHeight !== rowPx) setRowPx(row.offsetHeight);
  });
  if (!windowed) return { box, windowed, first: 0, last: count, rowPx, onScroll: undefined };
  const first = Math.max(0, Math.floor(scrollTop / rowPx) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowPx) + OVERSCAN);
  return { box, windowed, first, last, rowPx, onScroll: (e: Event) => setScrollTop((e.currentTarget as HTMLElement).scrollTop) };
}

/** `opened`: the file manager asked for an item's share dialog or version history; the view shows its folder and opens it. */
export function FilesView({ folders, opened = null, onOpened }: { folders: string[]; opened?: OpenView | null; onOpened?: () => void }) {
  const [root, setRoot] = useState(folders[0] ?? '');
  const [path, setPath] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sharing, setSharing] = useState<SyncedEntry | null>(null);
  const [history, setHistory] = useState<SyncedEntry | null>(null);
  const [markers, setMarkers] = useState<Map<string, EntryMarkers>>(new Map());
  const [markersProblem, setMarkersProblem] = useState<string | null>(null);
  const [message, setMessage] = useState('');
  const opener = useRef<HTMLElement | null>(null);
  const key = `${root}\n${path}`;
  // What is loaded of the folder, null until its first page came. Kept current as each answer comes, so what asks for
  // pages never reads an older render's copy of it; `loaded` renders the view again when it changed.
  const listing = useRef<Listing | null>(null);
  const [loaded, setLoaded] = useState(0);
  // What is loaded of another folder is not this one's, for the moment before it goes.
  const shown = listing.current?.key === key ? listing.current : null;
  const total = shown?.total ?? 0;
  const rows = useRowWindow(total, key);
  // Each folder shown is a generation: an answer for an earlier one is dropped.
  const generation = useRef(0);
  // Pages asked for and not answered yet (in this generation): each is asked once at a time.
  const asked = useRef(new Set<number>());

  // The drive's markers (shared, starred, link) come after the synced list, which the mirror answers at once.
  // A star set here while the markers were on their way is not undone by their answer.
  const starredHere = useRef(new Map<string, boolean>());
  const loadMarkers = () =>
    call('entries:markers', { root, path }).then(
      (list) => {
        // Only entries with a marker are answered; one starred here may not be among them yet.
        const here = starredHere.current;
        const next = new Map(list.map((m) => [m.path, here.has(m.path) ? { ...m, starred: here.get(m.path)! } : m]));
        for (const [at, starred] of here) if (!next.has(at)) next.set(at, { path: at, shared: false, starred, hasLink: false });
        setMarkers(next);
        setMarkersProblem(null);
      },
      (e) => setMarkersProblem(messageOf(e)),
    );
  /** Asks for page `n` of the folder shown, unless it is on its way; the answer is kept only for this folder. */
  const loadPage = (n: number, then?: (page: EntryPage) => void) => {
    if (asked.current.has(n)) return;
    asked.current.add(n);
    const mine = generation.current;
    call('entries:browse', { root, path, from: n * PAGE, count: PAGE }).then(
      (page) => {
        if (mine !== generation.current) return;
        asked.current.delete(n);
        const l = listing.current;
        listing.current =
          // The folder changed since the pages before were read: they are asked again as they come in sight.
          l === null || l.key !== key || l.total !== page.total
            ? { key, total: page.total, pages: new Map([[n, page.entries]]) }
            : { ...l, pages: new Map(l.pages).set(n, page.entries) };
        setLoaded((k) => k + 1);
        setError(null);
        then?.(page);
      },
      (e) => {
        if (mine !== generation.current) return;
        asked.current.delete(n);
        setError(messageOf(e));
      },
    );
  };
  const load = () => {
    generation.current++;
    asked.current = new Set();
    starredHere.current = new Map();
    listing.current = null;
    setLoaded((k) => k + 1);
    setMarkers(new Map());
    if (!root) return;
    loadPage(0, (page) => {
      if (page.total > 0) void loadMarkers();
    });
  };
  useEffect(load, [root, path]);
  // The pages of the rows in sight that have not come yet, asked as the list scrolls.
  useEffect(() => {
    const now = listing.current;
    if (now?.key !== key || rows.last <= rows.first) return;
    for (let n = Math.floor(rows.first / PAGE); n <= Math.floor((rows.last - 1) / PAGE); n++) if (!now.pages.has(n)) loadPage(n);
  }, [loaded, key, rows.first, rows.last]);
  const entryAt = (i: number): SyncedEntry | undefined => shown?.pages.get(Math.floor(i / PAGE))?.[i % PAGE];
  // What others share with the account is listed again when the view opens, not for every folder shown.
  useEffect(() => void call('shared:refresh').catch(() => undefined), []);

  const toggleStar = async (entry: SyncedEntry) => {
    const was = markers.get(entry.path)?.starred ?? false;
    setError(null);
    try {
      await call('entries:star', { root, path: entry.path, starred: !was });
      starredHere.current.set(entry.path, !was);
      setMarkers((m) => new Map(m).set(entry.path, { ...(m.get(entry.path) ?? { path: entry.path, shared: false, hasLink: false }), starred: !was }));
      setMessage(was ? `${entry.name} is no longer starred.` : `${entry.name} is starred.`);
    } catch (e) {
      setError(messageOf(e));
    }
  };

  useEffect(() => {
    if (!opened) return;
    const { entry } = opened;
    setRoot(entry.root);
    setPath(entry.path.includes('/') ? entry.path.slice(0, entry.path.lastIndexOf('/')) : '');
    opener.current = null;
    if (opened.view === 'share') setSharing(entry);
    else setHistory(entry);
    // Taken: the view shown again later does not open it again.
    onOpened?.();
  }, [opened]);

  const crumbs = path === '' ? [] : path.split('/');
  const openShare = (entry: SyncedEntry, event: Event) => {
    opener.current = event.currentTarget as HTMLElement;
    setSharing(entry);
  };
  const openHistory = (entry: SyncedEntry, event: Event) => {
    opener.current = event.currentTarget as HTMLElement;
    setHistory(entry);
  };
  const closeHistory = () => {
    setHistory(null);
    queueMicrotask(() => opener.current?.focus());
  };
  const closeShare = () => {
    setSharing(null);
    // Sharing may have changed the markers.
    void loadMarkers();
    // Focus goes back to the button that opened the dialog.
    queueMicrotask(() => opener.current?.focus());
  };

  return (
    <section aria-labelledby="files-title">
      <h2 id="files-title" tabIndex={-1}>
        Files
      </h2>
      {folders.length > 1 ? (
        <div class="field">
          <label for="files-root">Synced folder</label>
          <select
            id="files-root"
            value={root}
            onChange={(e) => {
              setRoot((e.currentTarget as HTMLSelectElement).value);
              setPath('');
            }}
          >
            {folders.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <nav aria-label="Folder path" class="crumbs">
        <ol>
          <li>
            <button type="button" class="link-button" onClick={() => setPath('')} aria-current={path === '' ? 'location' : undefined}>
              {folderName(root)}
            </button>
          </li>
          {crumbs.map((name, i) => (
            <li key={i}>
              <button
                type="button"
                class="link-button"
                onClick={() => setPath(crumbs.slice(0, i + 1).join('/'))}
                aria-current={i === crumbs.length - 1 ? 'location' : undefined}
              >
                {name}
              </button>
            </li>
          ))}
        </ol>
      </nav>
      <ViewMessages message={message} error={error} testId="files-message" />
      {markersProblem ? <p class="muted small">Shared, starred and link markers are not shown: {markersProblem}</p> : null}
      {shown === null ? (
        <p class="muted">Loading…</p>
      ) : total === 0 ? (
        <p class="muted">Nothing synced here yet.</p>
      ) : (
        // A long list's box takes the focus itself: the keyboard scrolls it (Page Down, End) even where every row in
        // sight is still loading and has nothing to focus.
        <div
          class={rows.windowed ? 'entries-scroll' : undefined}
          ref={rows.box}
          onScroll={rows.onScroll}
          {...(rows.windowed ? { tabIndex: 0, role: 'region', 'aria-label': `Entries of ${path === '' ? folderName(root) : crumbs[crumbs.length - 1]}` } : {})}
        >
        <table class={rows.windowed ? 'entries windowed' : 'entries'} data-testid="entries" aria-rowcount={total + 1}>
          <thead>
            <tr aria-rowindex={1}>
              <th scope="col">Name</th>
              <th scope="col" class="col-modified">Modified</th>
              <th scope="col" class="col-size">Size</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.first > 0 ? (
              <tr aria-hidden="true" class="spacer" style={{ height: `${rows.first * rows.rowPx}px` }}>
                <td colSpan={4} />
              </tr>
            ) : null}
            {Array.from({ length: rows.last - rows.first }, (_, i) => {
              const at = rows.first + i;
              const entry = entryAt(at);
              if (!entry) {
                // Its page is on its way: a row of the same height, in its place.
                return (
                  <tr key={`loading-${at}`} class="entry loading" aria-rowindex={at + 2} aria-busy="true" style={{ height: `${rows.rowPx}px` }}>
                    <td colSpan={4} class="muted">
                      Loading…
                    </td>
                  </tr>
                );
              }
              const m = markers.get(entry.path);
              return (
                <tr key={entry.remoteId} class="entry" aria-rowindex={at + 2}>
                  <td class="name-cell">
                    {entry.type === 'folder' ? (
                      <button type="button" class="link-button entry-name" onClick={() => setPath(entry.path)}>
                        <Icon name="folder" />
                        {entry.name}
                        <span class="sr-only"> (folder)</span>
                      </button>
                    ) : (
                      <span class="entry-name">
                        <Icon name="file" />
                        {entry.name}
                      </span>
                    )}
                    {entry.state ? <ItemStateMark state={entry.state} /> : null}
                    <span class="markers">
                      {m?.shared ? (
                        <span class="marker" title="Shared with people">
                          <Icon name="people" />
                          <span class="marker-text">Shared</span>
                        </span>
                      ) : null}
                      {m?.sharedWithMe ? (
                        <span class="marker shared-by" title={m.sharedWithMe.owner ? `Shared with you by ${m.sharedWithMe.owner}` : 'Shared with you'}>
                          <Icon name="people" />
                          <span class="marker-text">{m.sharedWithMe.owner ? `shared by ${m.sharedWithMe.owner}` : 'shared with you'}</span>
                        </span>
                      ) : m?.sharedFolder ? (
                        <span class="marker shared-by" title="What others share with you">
                          <Icon name="people" />
                          <span class="marker-text">shared with you</span>
                        </span>
                      ) : null}
                      {m?.sharedWithMe?.permissions && !m.sharedWithMe.permissions.includes('edit') ? (
                        <span class="marker view-only" title="You may view it, not edit it">
                          <span class="marker-text">view only</span>
                        </span>
                      ) : null}
                      {m?.hasLink ? (
                        <span class="marker" title="Has a link">
                          <Icon name="link" />
                          <span class="marker-text">Link</span>
                        </span>
                      ) : null}
                    </span>
                  </td>
                  <td class="col-modified">{formatWhen(entry.modifiedAt)}</td>
                  <td class="col-size">{entry.type === 'folder' ? '—' : formatBytes(entry.size)}</td>
                  <td class="actions-cell">
                    <div class="row-actions">
                    {m?.sharedFolder ? null : (
                    <button
                      type="button"
                      class={`star${m?.starred ? ' on' : ''}`}
                      aria-pressed={m?.starred ? 'true' : 'false'}
                      aria-label={`Star ${entry.name}`}
                      title={m?.starred ? 'Starred: press to unstar' : 'Star'}
                      onClick={() => void toggleStar(entry)}
                    >
                      <Icon name="star" />
                    </button>
                    )}
                    {entry.type === 'file' ? (
                      <button type="button" onClick={(e) => openHistory(entry, e)} aria-label={`Version history of ${entry.name}`}>
                        Version history…
                      </button>
                    ) : null}
                    {m?.sharedFolder ? null : m?.sharedWithMe ? (
                      <button type="button" onClick={(e) => openShare(entry, e)} aria-label={`Who has access to ${entry.name}`}>
                        Who has access…
                      </button>
                    ) : (
                      <button type="button" onClick={(e) => openShare(entry, e)} aria-label={`Share ${entry.name}`}>
                        Share…
                      </button>
                    )}
                    </div>
                  </td>
                </tr>
              );
            })}
            {rows.last < total ? (
              <tr aria-hidden="true" class="spacer" style={{ height: `${(total - rows.last) * rows.rowPx}px` }}>
                <td colSpan={4} />
              </tr>
            ) : null}
          </tbody>
        </table>
        </div>
      )}
      {sharing ? <ShareDialog entry={sharing} onClose={closeShare} /> : null}
      {history ? <VersionsDialog file={history} onClose={closeHistory} /> : null}
    </section>
  );
}
