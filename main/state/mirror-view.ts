/**
 * What the front ends may read of a synced folder's mirror: an item by path or id, a folder's children (a window of
 * them and how many), what this computer trashed. The queries stay with the mirror's schema in main/sync (its one
 * owner of SQL on those tables); the front ends reach them only through here, so they never depend on the engine
 * itself.
 */
export { readMirror, syncedChildrenOf, syncedItemAt } from '../sync/trees/mirror-read.js';
export type { ChildRange, ChildrenPage, MirrorEntry, MirrorReader } from '../sync/trees/mirror-read.js';
