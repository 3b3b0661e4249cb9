import type { Http } from './http.js';
import { BadResponseError } from './errors.js';
import type { EntryId } from './entries.js';
import { LinkResponse, Status } from './checks.js';
import type { FileEntry, ShareableLink } from './schemas.js';

export interface LinkSettings {
  password?: string | null;
  /** ISO 8601 timestamp, or null for no expiry. */
  expiresAt?: string | null;
  allowEdit?: boolean;
  allowDownload?: boolean;
}

export interface LinkInfo {
  link: ShareableLink;
  folderChildren?: FileEntry[];
}

/**
 * The body fields in both spellings: the document's snake_case, and the camelCase deployed versions validate (they
 * drop the snake_case ones, and would then reset them). Deployed versions reset omitted fields on update, so every
 * field is always sent; the password is sent only when one is set or being removed.
 */
function body(settings: LinkSettings) {
  const expires = settings.expiresAt ?? null;
  const allowEdit = settings.allowEdit ?? false;
  const allowDownload = settings.allowDownload ?? true;
  return {
    ...(settings.password !== undefined ? { password: settings.password } : {}),
    expires_at: expires,
    allow_edit: allowEdit,
    allow_download: allowDownload,
    expiresAt: expires,
    allowEdit,
    allowDownload,
  };
}

/** The shareable link of an entry. GET and POST use `file-entries`; PUT and DELETE use `file_entries`. */
export class LinksApi {
  constructor(private readonly http: Http) {}

  /** The entry's link, or null when it has none (404, or 200 with `link: null` as some deployments answer). */
  async get(entryId: EntryId | string): Promise<LinkInfo | null> {
    const { status, body: answer } = await this.http.json({
      endpoint: 'GET /file-entries/{entryId}/shareable-link',
      method: 'GET',
      path: `file-entries/${encodeURIComponent(String(entryId))}/shareable-link`,
      check: LinkResponse,
      accept: [404],
    });
    if (status === 404 || !answer?.link) return null;
    return { link: answer.link, ...(answer.folderChildren ? { folderChildren: answer.folderChildren } : {}) };
  }

  async create(entryId: EntryId, settings: LinkSettings = {}): Promise<ShareableLink> {
    const { body: answer } = await this.http.json({
      endpoint: 'POST /file-entries/{entryId}/shareable-link',
      method: 'POST',
      path: `file-entries/${entryId}/shareable-link`,
      json: body(settings),
      check: LinkResponse,
    });
    return this.required(answer.link, 'POST /file-entries/{entryId}/shareable-link');
  }

  async update(entryId: EntryId, settings: LinkSettings): Promise<ShareableLink> {
    const { body: answer } = await this.http.json({
      endpoint: 'PUT /file_entries/{entryId}/shareable-link',
      method: 'PUT',
      path: `file_entries/${entryId}/shareable-link`,
      json: body(settings),
      check: LinkResponse,
    });
    return this.required(answer.link, 'PUT /file_entries/{entryId}/shareable-link');
  }

  async delete(entryId: EntryId): Promise<void> {
    await this.http.json({
      endpoint: 'DELETE /file_entries/{entryId}/shareable-link',
      method: 'DELETE',
      path: `file_entries/${entryId}/shareable-link`,
      check: Status,
    });
  }

  /** The public address of a link: `{origin}/drive/s/{hash}`. */
  publicUrl(link: ShareableLink): string {
    return `${this.http.origin}/drive/s/${encodeURIComponent(link.hash)}`;
  }

  private required(link: ShareableLink | null, endpoint: string): ShareableLink {
    if (!link) throw new BadResponseError(endpoint, 'the answer carries no link');
    return link;
  }
}
