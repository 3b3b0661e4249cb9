// What the server answers where the documents and the deployed versions of the service differ
// (docs/server.md, What deployed versions answer). Each difference a client can tell is one member of Profile; the routes ask the
// profile and never test its name. The table in docs/server.md says the same in words.

export const PROFILE_NAMES = ['documents', 'deployed'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];
export type ListFormat = 'paginator' | 'array';

type Flags = { view: boolean; edit: boolean; download: boolean };

/** Link settings as a request body may carry them, in either spelling. */
export interface LinkBodyInput {
  password?: string | null;
  expires_at?: string | null;
  allow_edit?: boolean | null;
  allow_download?: boolean | null;
  expiresAt?: string | null;
  allowEdit?: boolean | null;
  allowDownload?: boolean | null;
}

/** The settings a link request asks for; undefined is "not given", which takes the default. */
export interface LinkRequest {
  password: string | null | undefined;
  expiresAt: string | null | undefined;
  allowEdit: boolean | null | undefined;
  allowDownload: boolean | null | undefined;
}

export type PermissionInput = ReadonlyArray<'view' | 'edit' | 'download'> | Partial<Flags>;

export interface Profile {
  readonly name: ProfileName;
  /** `GET /drive/file-entries` with no selector: every entry of the caller's drive, or the root's children only. */
  readonly unselectedListing: 'whole-drive' | 'root-children';
  /** The page size of a listing, given the `perPage` asked for. */
  pageSize(asked: number | undefined): number;
  /** The listing's shape, given the server's `listFormat` option. */
  listFormat(option: ListFormat): ListFormat;
  /** The link settings a shareable-link request body carries. */
  linkRequest(body: LinkBodyInput): LinkRequest;
  /** The flags a share or change-permissions request grants. */
  sharePermissions(input: PermissionInput): Flags;
  /** Whether register refuses a request without `password_confirmation`. */
  readonly registerNeedsConfirmation: boolean;
  /** The answer to a successful register. */
  registerAnswer(user: Record<string, unknown>): Record<string, unknown>;
  /**
   * The body of a 422. `plain` names the fields whose message deployed versions answer as a string rather than a
   * list (the duplicate folder name).
   */
  validationBody(message: string, errors: Record<string, string>, plain?: ReadonlySet<string>): Record<string, unknown>;
  /** GET shareable-link of an entry that has no link: a 404, or 200 `{link: null}`. */
  readonly missingLink: 'not-found' | 'null';
  /** DELETE /file-entries without `deleteForever`: to the trash, or gone for good. */
  readonly deleteWithoutFlag: 'trash' | 'forever';
  /** Whether a move answers the moved entries (deployed versions may answer `entries: []`). */
  readonly moveAnswersEntries: boolean;
  /** An entry's `type` from its MIME type. */
  entryType(mime: string | null): string;
  /** Store of an e-mail the list already has: a 422, or an update of that subscriber (answering its id). */
  readonly existingSubscriber: 'refuse' | 'update';
  /** An entry's `users` name its owner too (`owns_entry: true`), as deployed versions do; the document lists the people it is shared with. */
  readonly usersListOwner: boolean;
}

const DEPLOYED_PAGE_SIZE = 50;

/** The document's six types; anything else is `file`. */
function documentType(mime: string | null): string {
  if (!mime) return 'file';
  if (mime === 'application/pdf') return 'pdf';
  const major = mime.split('/')[0];
  if (major === 'image' || major === 'video' || major === 'audio' || major === 'text') return major;
  return 'file';
}

/** The further types deployed versions answer, by MIME type. */
const DEPLOYED_TYPES = new Map<string, string>(
  Object.entries({
    archive: ['zip', 'x-7z-compressed', 'x-rar-compressed', 'vnd.rar', 'x-tar', 'gzip', 'x-gzip', 'x-bzip2', 'x-xz'],
    spreadsheet: [
      'vnd.ms-excel',
      'vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'vnd.oasis.opendocument.spreadsheet',
    ],
    word: ['msword', 'vnd.openxmlformats-officedocument.wordprocessingml.document', 'vnd.oasis.opendocument.text'],
    powerPoint: ['vnd.ms-powerpoint', 'vnd.openxmlformats-officedocument.presentationml.presentation'],
  }).flatMap(([type, subtypes]) => subtypes.map((subtype): [string, string] => [`application/${subtype}`, type])),
);

const grants = (has: (p: 'edit' | 'download') => boolean): Flags => ({
  // Any share lets the recipient see the entry.
  view: true,
  edit: has('edit'),
  download: has('download'),
});

export const DOCUMENTS: Profile = {
  name: 'documents',
  unselectedListing: 'whole-drive',
  pageSize: (asked) => asked ?? 50,
  listFormat: (option) => option,
  // The document's snake_case fields; camelCase as some deployments send them is taken too.
  linkRequest: (b) => ({
    password: b.password,
    expiresAt: b.expires_at ?? b.expiresAt,
    allowEdit: b.allow_edit ?? b.allowEdit,
    allowDownload: b.allow_download ?? b.allowDownload,
  }),
  // The document's list of names; an object of flags is taken too.
  sharePermissions: (input) =>
    grants((p) => (isNameList(input) ? input.includes(p) : (input as Partial<Flags>)[p] === true)),
  registerNeedsConfirmation: false,
  registerAnswer: (user) => ({ status: 'success', user }),
  validationBody: (message, errors) => ({ status: 'error', message, errors }),
  missingLink: 'not-found',
  deleteWithoutFlag: 'trash',
  moveAnswersEntries: true,
  entryType: documentType,
  existingSubscriber: 'refuse',
  usersListOwner: false,
};

export const DEPLOYED: Profile = {
  name: 'deployed',
  unselectedListing: 'root-children',
  pageSize: () => DEPLOYED_PAGE_SIZE,
  listFormat: () => 'paginator',
  // The deployed request validates camelCase fields only; snake_case ones are dropped as unknown, so they reset to
  // the defaults like any omitted field. Answers keep the stored model's snake_case columns.
  linkRequest: (b) => ({
    password: b.password,
    expiresAt: b.expiresAt,
    allowEdit: b.allowEdit,
    allowDownload: b.allowDownload,
  }),
  // Permissions are an object of flags; a list of names is stored as given and read by key, so it grants nothing
  // beyond view.
  sharePermissions: (input) =>
    grants((p) => (isNameList(input) ? false : (input as Partial<Flags>)[p] === true)),
  registerNeedsConfirmation: true,
  registerAnswer: (user) => ({ status: 'success', bootstrapData: { user } }),
  validationBody: (message, errors, plain = new Set()) => ({
    message,
    errors: Object.fromEntries(Object.entries(errors).map(([field, text]) => [field, plain.has(field) ? text : [text]])),
  }),
  missingLink: 'null',
  deleteWithoutFlag: 'forever',
  moveAnswersEntries: false,
  entryType: (mime) => (mime !== null ? DEPLOYED_TYPES.get(mime) : undefined) ?? documentType(mime),
  existingSubscriber: 'update',
  usersListOwner: true,
};

function isNameList(input: PermissionInput): input is ReadonlyArray<'view' | 'edit' | 'download'> {
  return Array.isArray(input);
}

export const PROFILES: Readonly<Record<ProfileName, Profile>> = { documents: DOCUMENTS, deployed: DEPLOYED };

export class ProfileError extends Error {}

/** The profile of a start option; an unknown name or a list format the profile never answers is refused. */
export function profileOf(name: ProfileName | undefined, listFormat: ListFormat | undefined): Profile {
  const chosen = name ?? 'documents';
  if (!Object.hasOwn(PROFILES, chosen)) {
    throw new ProfileError(`unknown profile ${String(chosen)} (expected ${PROFILE_NAMES.join(' or ')})`);
  }
  const profile = PROFILES[chosen];
  if (listFormat !== undefined && profile.listFormat(listFormat) !== listFormat) {
    const shape = (format: ListFormat) => (format === 'array' ? 'an array' : `a ${format}`);
    throw new ProfileError(
      `the ${profile.name} profile always answers listings as ${shape(profile.listFormat(listFormat))}, not ${shape(listFormat)}`,
    );
  }
  return profile;
}
