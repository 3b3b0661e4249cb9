/**
 * The window's one state (renderer/src/folder-state.ts): the badge, the status line, the folder rows and the
 * transfers panel all read it, so these cases are what they all say. Its words are the tray's.
 */
import { describe, expect, it } from 'vitest';
import { describeState, type FolderState, type FolderView, type OverallState, type Progress, type StatusSnapshot } from '../../main/contract/index.js';
import { changesWaiting, shownState, STATE_WORDS } from '../../renderer/src/folder-state.js';

const STATES: OverallState[] = ['signed-out', 'starting', 'idle', 'scanning', 'syncing', 'paused', 'waiting-for-consent', 'stopped', 'offline', 'error'];

function folder(root: string, state: FolderState, detail: string | null = null): FolderView {
  return { root, state, detail, lastSync: null, synced: 3, inSync: state === 'idle', skipped: 0, leftOut: [], stateText: describeState(state) };
}

function status(folders: FolderView[], extra: Partial<StatusSnapshot> = {}): StatusSnapshot {
  return {
    account: { server: 'http://127.0.0.1:8080', email: 'me@example.com' },
    state: 'idle',
    stateText: 'Up to date',
    detail: null,
    paused: false,
    folders,
    pendingDeletions: [],
    ...extra,
  };
}

const quiet: Progress = { active: false, bytesDone: 0, bytesTotal: 0, bytesPerSecond: 0, etaSeconds: 0, filesDone: 0, transfers: [] };
const moving = (root: string): Progress => ({
  active: true,
  bytesDone: 3 << 20,
  bytesTotal: 12 << 20,
  bytesPerSecond: 1 << 20,
  etaSeconds: 9,
  filesDone: 0,
  transfers: [{ root, path: 'big.bin', direction: 'up', transferred: 3 << 20, total: 12 << 20 }],
});

/** Everything the window would say: the app's state, and each folder's. */
const said = (s: StatusSnapshot, p: Progress | null) => {
  const shown = shownState(s, p);
  return { app: shown.words, folders: shown.folders.map((f) => f.words), transferring: shown.transferring };
};

describe("the window's one state", () => {
  it('says each state in the words the tray uses', () => {
    for (const state of STATES) expect(STATE_WORDS[state], state).toBe(describeState(state));
  });

  it('says syncing while bytes move, even when the last state event said up to date', () => {
    expect(said(status([folder('/a', 'idle')]), moving('/a'))).toEqual({ app: 'Syncing…', folders: ['Syncing…'], transferring: true });
    // Another folder that is up to date says so; the app is syncing.
    expect(said(status([folder('/a', 'idle'), folder('/b', 'idle')]), moving('/b'))).toEqual({ app: 'Syncing…', folders: ['Up to date', 'Syncing…'], transferring: true });
    expect(said(status([folder('/a', 'scanning')], { state: 'scanning' }), moving('/a')).app).toBe('Syncing…');
    expect(said(status([folder('/a', 'idle')]), quiet)).toEqual({ app: 'Up to date', folders: ['Up to date'], transferring: false });
  });

  it('says offline for every folder when the server cannot be reached', () => {
    const s = status([folder('/a', 'offline', 'Cannot reach the drive server at 127.0.0.1:8080 — is it running?'), folder('/b', 'idle'), folder('/c', 'error', 'The disk is full.')], {
      state: 'offline',
      detail: 'Cannot reach the drive server at 127.0.0.1:8080 — is it running?',
    });
    const shown = shownState(s, quiet);
    // An error still says itself (it is worse than offline, and says what to do).
    expect([shown.words, ...shown.folders.map((f) => f.words)]).toEqual(['Needs attention', 'Offline', 'Offline', 'Needs attention']);
    expect(shownState({ ...s, folders: s.folders.slice(0, 2) }, quiet)).toMatchObject({ state: 'offline', detail: 'Cannot reach the drive server at 127.0.0.1:8080 — is it running?' });
    // The app said offline with folders that had not noticed yet: they are offline too.
    expect(said(status([folder('/a', 'idle')], { state: 'offline' }), quiet)).toEqual({ app: 'Offline', folders: ['Offline'], transferring: false });
    // Nothing moves while offline, whatever the progress still lists.
    expect(said(status([folder('/a', 'offline')], { state: 'offline' }), moving('/a'))).toEqual({ app: 'Offline', folders: ['Offline'], transferring: false });
  });

  it('says since when the drive cannot be reached and how many changes made here wait to go up', () => {
    const why = 'Cannot reach the drive server at 127.0.0.1:8080 — is it running? drivesync tries again on its own.';
    const since = '2026-03-14T13:02:00.000Z';
    const a = { ...folder('/a', 'offline', why), offline: { since: '2026-03-14T13:05:00.000Z', waitingUp: 1 } };
    const b = { ...folder('/b', 'offline', why), offline: { since, waitingUp: 2 } };
    const shown = shownState(status([a, b], { state: 'offline', detail: why, offline: { since, waitingUp: 3 } }), quiet);
    // The app: since the first folder that could not reach the drive, with what waits in all of them.
    expect(shown).toMatchObject({ state: 'offline', words: 'Offline', since, detail: `${why} 3 changes made here wait to go up.` });
    expect(shown.folders.map((f) => [f.since, f.detail])).toEqual([
      ['2026-03-14T13:05:00.000Z', `${why} 1 change made here waits to go up.`],
      [since, `${why} 2 changes made here wait to go up.`],
    ]);
    // Nothing waiting, or not counted yet: the reason alone; a folder the others' offline makes offline says since when too.
    expect(shownState(status([b], { state: 'offline', detail: why, offline: { since, waitingUp: 0 } }), quiet).detail).toBe(why);
    const c = folder('/c', 'idle');
    const uncounted = shownState(status([{ ...b, offline: { since, waitingUp: null } }, c], { state: 'offline', detail: why, offline: { since, waitingUp: null } }), quiet);
    expect(uncounted).toMatchObject({ since, detail: why });
    expect(uncounted.folders[1]).toMatchObject({ state: 'offline', since, detail: null });
    // Paused while offline: paused, and no since.
    expect(shownState(status([b], { state: 'paused', paused: true, detail: 'Syncing is paused.', offline: { since, waitingUp: 2 } }), quiet)).toMatchObject({ state: 'paused', since: null });
    expect(changesWaiting(1)).toBe('1 change made here waits to go up.');
  });

  it('says paused everywhere while syncing is paused, and nothing moves', () => {
    const s = status([folder('/a', 'idle'), folder('/b', 'syncing')], { state: 'paused', paused: true, detail: 'Syncing is paused.' });
    expect(said(s, moving('/b'))).toEqual({ app: 'Paused', folders: ['Paused', 'Paused'], transferring: false });
    expect(shownState(s, null)).toMatchObject({ detail: 'Syncing is paused.', paused: true });
    // An error is still said.
    expect(said(status([folder('/a', 'error', 'The disk is full.')], { state: 'error', paused: true }), null)).toMatchObject({ app: 'Needs attention', folders: ['Needs attention'] });
  });

  it('says which folder waits for an answer, and the app waits too', () => {
    const s = status([folder('/a', 'waiting-for-consent', 'Waiting for your answer to delete 40 items.'), folder('/b', 'idle')], { state: 'waiting-for-consent' });
    const shown = shownState(s, quiet);
    expect([shown.words, ...shown.folders.map((f) => f.words)]).toEqual(['Waiting for your answer', 'Waiting for your answer', 'Up to date']);
    expect(shown.paused).toBe(true);
    expect(shown.folders[0]!.detail).toBe('Waiting for your answer to delete 40 items.');
  });

  it('says signed out, and up to date with no folder', () => {
    expect(shownState(status([], { account: null, state: 'signed-out' }), null)).toMatchObject({ words: 'Signed out', folders: [] });
    expect(shownState(status([], { detail: 'No folder is synced: choose one in Settings.' }), null)).toMatchObject({ words: 'Up to date', detail: 'No folder is synced: choose one in Settings.' });
  });
});
