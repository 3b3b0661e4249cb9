import type { FastifyReply } from 'fastify';
import escape from 'escape-html';
import { humanBytes } from '../main/api/units.js';
import type { EntryRow } from './entries.js';

/** What a browser gets for a folder's shareable link: the page's policy allows no script and nothing loaded. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'";

/** Text made safe for HTML content and for quoted attribute values. */
export const escapeHtml = (text: string): string => escape(text);

export interface FolderPage {
  /** The link's hash: every address on the page is relative to `/drive/s/{hash}`. */
  hash: string;
  folder: EntryRow;
  /** The folder's active children. */
  children: EntryRow[];
  /** The parent page's query (`{}` for the shared folder itself), or null on the shared folder's own page. */
  up: Record<string, string> | null;
  allowDownload: boolean;
  /** The password given in the query, carried on every address so the next page opens too. */
  password?: string | undefined;
}

/** An address of the same link, relative to the page: `HASH?folder=12&password=…`, escaped for an attribute. */
function hrefOf(page: FolderPage, query: Record<string, string>): string {
  const params = new URLSearchParams(query);
  if (page.password !== undefined) params.set('password', page.password);
  const search = params.toString();
  return escapeHtml(`${encodeURIComponent(page.hash)}${search === '' ? '' : `?${search}`}`);
}

const byName = (a: EntryRow, b: EntryRow) => a.name.localeCompare(b.name) || a.id - b.id;

function folderRow(page: FolderPage, folder: EntryRow): string {
  const href = hrefOf(page, { folder: String(folder.id) });
  return `<tr><td><a href="${href}">&#128193; ${escapeHtml(folder.name)}/</a></td><td>folder</td></tr>`;
}

function fileRow(page: FolderPage, file: EntryRow): string {
  const name = escapeHtml(file.name);
  const cell = page.allowDownload ? `<a href="${hrefOf(page, { file: String(file.id) })}" download>${name}</a>` : name;
  return `<tr><td>${cell}</td><td>${humanBytes(file.file_size)}</td></tr>`;
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:48rem;padding:0 1rem;color:#222}' +
  'table{border-collapse:collapse;width:100%}td{padding:.35rem .5rem;border-bottom:1px solid #ddd}' +
  'td:last-child{text-align:right;white-space:nowrap;color:#555}h1{font-size:1.5rem;word-break:break-word}' +
  '.note{color:#555}';

/** The page of a folder reached through a shareable link: its subfolders, then its files, each by name. */
export function folderPageHtml(page: FolderPage): string {
  const title = escapeHtml(page.folder.name);
  const folders = page.children.filter((c) => c.type === 'folder').sort(byName);
  const files = page.children.filter((c) => c.type !== 'folder').sort(byName);
  const rows = [...folders.map((f) => folderRow(page, f)), ...files.map((f) => fileRow(page, f))];
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">` +
    `<title>${title}</title><style>${STYLE}</style></head><body><main>` +
    (page.up ? `<p><a href="${hrefOf(page, page.up)}">&#8593; Parent folder</a></p>` : '') +
    `<h1>${title}</h1>` +
    (page.allowDownload ? '' : '<p class="note">Downloads are turned off for this link.</p>') +
    (rows.length > 0 ? `<table><tbody>${rows.join('')}</tbody></table>` : '<p class="note">This folder is empty.</p>') +
    `</main></body></html>`
  );
}

/** Answers the page: 200 HTML under a policy that runs no script, sends no referrer and is not stored by caches. */
export function sendFolderPage(reply: FastifyReply, page: FolderPage) {
  return reply
    .code(200)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'private, no-store')
    .send(folderPageHtml(page));
}
