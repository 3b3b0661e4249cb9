import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8 flags for a process that hosts a SyncEngine (the `drivesync` command, the desktop app's host process).
 *
 * A no-change pass over 100,000 items allocates some hundreds of MB of short-lived objects (listing pages, scan
 * stats). With V8's default 16 MB semi-spaces the young generation grows to 32 MB and stays that size until V8's
 * memory reducer runs, seconds after the pass; 2 MB semi-spaces keep an idle engine ~50 MB smaller from the moment
 * a pass ends, with pass times unchanged (see the memory and remote-poll benchmarks).
 *
 * `--heap-growing-percent=30` grows the old generation by 30 % at a time: an initial sync of 100,000 files promotes
 * much short-lived garbage (each upload's request and answer outlives a 2 MB young generation), and with V8's default
 * growth the heap and what hangs off it (buffers) reached 418 MB at the peak and stayed there; with it, 223 MB at the
 * peak (the `field` benchmark). `--optimize-for-size` held the peak to 197 MB, but its memory-reducing collections
 * compact the heap each time and it optimises code less: a planning round over 100,000 items took 5–6 s with it and
 * 2–3 s with this, and that round is most of the time a change made elsewhere takes to arrive.
 *
 * V8 reads these only at start-up: they go on the command line (bin/drivesync.js's first line repeats them), not
 * through v8.setFlagsFromString.
 */
export const ENGINE_V8_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--heap-growing-percent=30'];

/**
 * glibc's allocator for a process that hosts a SyncEngine, read when the process starts (the first line of
 * bin/drivesync.js sets them; the desktop app gives them to its host process). By default every thread that
 * allocates gets an arena of its own (the watcher's native thread, libuv's pool, V8's workers), each keeping what it
 * freed; and after large buffers are freed, glibc raises the size above which it gives memory back to the system
 * (up to 64 MB), so an initial sync's freed buffers stay. Two arenas, and a fixed trim threshold (setting it turns
 * the raising off): an idle engine after a 100,000-file initial sync holds 125 MB instead of 136 (`field`).
 * Other C libraries ignore them.
 */
export const ENGINE_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072' };

let exposedGc: (() => void) | null | undefined;

/**
 * Full collections, now: an engine that has let base go (idle for a minute) gives back what the passes before left
 * at once, not whenever V8's memory reducer next runs. The first frees what is dead but leaves the old generation's
 * pages committed, most of them mostly empty; the second moves what lives out of those pages and gives them back
 * (test/bench `field`). V8 makes `gc` available to a context created after the flag is set; a process started with
 * `--expose-gc` has it already.
 */
export function collectGarbage(): void {
  const gc = exposed();
  gc?.();
  gc?.();
}

function exposed(): (() => void) | null {
  const global = (globalThis as { gc?: () => void }).gc;
  if (global) return global;
  if (exposedGc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      exposedGc = runInNewContext('gc') as () => void;
    } catch {
      exposedGc = null;
    }
  }
  return exposedGc;
}
