/**
 * What a process that hosts the engines starts with: V8 reads its flags and glibc its allocator settings only at
 * start-up, so whoever starts that process (the desktop app's main process, for its host) passes them on.
 */
export { ENGINE_ENV, ENGINE_V8_FLAGS } from '../sync/engine/process-flags.js';
