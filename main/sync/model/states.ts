/**
 * What a synced folder's engine is doing. It moves between these on transition events (the engine's `state` event
 * tells each one): starting → scanning → syncing → idle, and back to scanning for the next pass; a pass ends in
 * `error` when something failed, `offline` when the server could not be reached, `waiting-for-consent` when it
 * stopped at the mass-delete guard; `paused` from pause until resume; `stopped` once it stopped for good.
 *
 * A module of its own that imports nothing: the window's contract names these states too, and may take them from
 * here without reaching into the engine.
 */
export const ENGINE_STATES = ['starting', 'idle', 'scanning', 'syncing', 'paused', 'waiting-for-consent', 'offline', 'error', 'stopped'] as const;
export type EngineState = (typeof ENGINE_STATES)[number];

/**
 * What a path inside a synced folder is, as the file manager's emblems and the window's file lists say it
 * (docs/file-manager.md): the engine answers it from memory (engine/path-states.ts).
 */
export const PATH_STATES = ['synced', 'syncing', 'error', 'conflict', 'ignored', 'excluded', 'online-only', 'none'] as const;
export type PathState = (typeof PATH_STATES)[number];
