/**
 * The one contract between the window and the rest of the app (main/contract): the calls the page may make, the
 * events it may receive, and their shapes. The preload bundles it; the renderer imports only its types; the main
 * process and the host implement it.
 */
export * from './arguments.js';
export * from './bridge.js';
export * from './calls.js';
export * from './events.js';
export * from './shapes.js';
