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
