/**
 * V8 flags for a process that hosts a SyncEngine (the `drivesync` command, the desktop app's host process).
 *
 * A no-change pass over 100,000 items allocates some hundreds of MB of short-lived objects (listing pages, scan
 * stats). With V8's default 16 MB semi-spaces the young generation grows to 32 MB and stays that size until V8's
 * memory reducer runs, seconds after the pass; 2 MB semi-spaces keep an idle engine ~50 MB smaller from the moment
 * a pass ends, with pass times unchanged (see the memory and remote-poll benchmarks).
 *
 * `--optimize-for-size` grows the old generation more slowly: an initial sync of 100,000 files promotes much
 * short-lived garbage (each upload's request and answer outlives a 2 MB young generation), and with V8's default
 * growth the heap and what hangs off it (buffers) reached 422 MB at the peak and stayed there; with it, 203 MB at the
 * peak. It costs CPU: 114 s instead of 79 s for that sync, 165 s instead of 149 s of wall time (the `field`
 * benchmark), a price paid once; the memory is what an idle engine keeps all day.
 *
 * `--expose-gc` lets an engine that has let base go (idle for a minute) collect at once what the passes before left
 * (`collectGarbage`), instead of whenever V8's memory reducer next runs.
 *
 * V8 reads these only at start-up: they go on the command line (bin/drivesync.js's first line repeats them), not
 * through v8.setFlagsFromString.
 */
export const ENGINE_V8_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--optimize-for-size', '--expose-gc'];

/** A full collection, where the process runs with `--expose-gc` (engine processes do); nothing elsewhere. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
