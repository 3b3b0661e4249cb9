/**
 * What others share with the account, as the engine's words: the entries shared with it (each a top of the shared
 * area, with what the account may do there), the area they make in the remote tree, and where it is placed locally.
 * remote/shared.ts lists it from the drive; plan/access.ts decides what the account may do inside it.
 */
import type { RemoteId, RemoteItem } from './types.js';

/** The shared folder's id; an owner's folder is `-(owner's user id + 1)`. */
export const SHARED_FOLDER_ID = -1;

/** Where what is shared with the account arrives, and who the account is (its e-mail, to find its permissions). */
export interface SharedPlace {
  folder: string;
  me: string | undefined;
}

export interface SharedTop {
  id: RemoteId;
  name: string;
  /** A file (a save replaces a file's entry with a new one; a folder keeps its entry). */
  file: boolean;
  /** The folder it is in on its owner's drive (null: at the top of it, or not said). */
  folderId: RemoteId | null;
  /** The owner's e-mail, when the drive says. */
  owner: string | null;
  /** The account may change it (the drive lists `edit` for it); false also when the drive does not say. */
  editable: boolean;
  /** The account may download its files (unless the drive lists `download` as not granted). */
  downloadable: boolean;
}

/** The shared part of the remote tree, as one listing of it found it. */
export interface SharedArea {
  items: RemoteItem[];
  tops: ReadonlyMap<RemoteId, SharedTop>;
  /** Changes when anything the listing found changes (a poll compares it with the last). */
  key: string;
}

export const NO_SHARED_AREA: SharedArea = { items: [], tops: new Map(), key: '' };
