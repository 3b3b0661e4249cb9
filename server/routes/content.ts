import type { App, Context } from '../context.js';
import { sendContent } from '../content.js';
import { EntryIdParams } from './common.js';

/** A file's `url` (api/v1/file-entries/{id}) serves its bytes to callers with download permission. */
export function contentRoutes(app: App, ctx: Context): void {
  app.get('/file-entries/:entryId', { schema: { params: EntryIdParams } }, async (request, reply) => {
    const entry = ctx.entries.require(request.params.entryId);
    ctx.entries.authorize(request.userId, entry, 'download');
    return sendContent(ctx, entry, request, reply, 'attachment');
  });
}
