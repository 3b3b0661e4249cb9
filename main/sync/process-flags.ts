/**
 * V8 flags for a process that hosts a SyncEngine (the `drivesync` command, the desktop app's host process).
 *
 * A no-change pass over 100,000 items allocates some hundreds of MB of short-lived objects (listing pages, scan
 * stats). With V8's default 16 MB semi-spaces the young generation grows to 32 MB and stays that size until V8's
 * memory reducer runs, seconds after the pass; 2 MB semi-spaces keep an idle engine ~50 MB smaller from the moment
 * a pass ends, with pass times unchanged (see the memory and remote-poll benchmarks).
 *
 * V8 reads these only at start-up: they go on the command line (bin/drivesync.js's first line repeats them), not
 * through v8.setFlagsFromString.
 */
export const ENGINE_V8_FLAGS: readonly string[] = ['--max-semi-space-size=2'];
