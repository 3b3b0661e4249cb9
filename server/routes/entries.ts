import type { App, Context } from '../context.js';
import { registerDetailChanges } from './entries/details.js';
import { registerNewFolder } from './entries/folders.js';
import { registerListing } from './entries/listing.js';
import { registerDuplicate, registerMove } from './entries/moves.js';
import { registerStars } from './entries/stars.js';
import { registerTrash } from './entries/trash.js';

/**
 * The file-entry routes of the files API, one module for each thing a request does to entries, so that a route's
 * rules are read in one place and one kind of request can change without touching the others.
 */
export function entryRoutes(app: App, ctx: Context): void {
  registerListing(app, ctx);
  registerTrash(app, ctx);
  registerDetailChanges(app, ctx);
  registerNewFolder(app, ctx);
  registerMove(app, ctx);
  registerDuplicate(app, ctx);
  registerStars(app, ctx);
}
