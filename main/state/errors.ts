/**
 * Failures of the shared state a person can act on. Each is one line; the command line and the window word the
 * ones they must (a bad server address names `--server` on one and a form field on the other).
 */
export class StateError extends Error {}

/** The server address is not an http(s) URL. */
export class ServerAddressError extends StateError {
  constructor(
    readonly reason: 'not-a-url' | 'not-http',
    readonly given: string,
  ) {
    super(reason === 'not-a-url' ? `the server must be a URL such as http://127.0.0.1:8080 (got ${given})` : `the server must start with http:// or https:// (got ${given})`);
  }
}

/** Another process syncs the folder already. */
export class FolderLocked extends StateError {}

/** The folder cannot be synced: missing, not a folder, nested in or around another synced folder, or its mirror unreadable. */
export class FolderRefused extends StateError {}
