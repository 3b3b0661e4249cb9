/**
 * The window's security rules: the CSP on every response of the app's session, no permissions, no navigation, no
 * new windows, no webviews, external links only to http(s) and only in the user's browser, and IPC accepted only
 * from the app's own page in the app's own window.
 */
import type { IpcMainInvokeEvent, Session, WebContents } from 'electron';
import { CSP } from './csp.js';

/** http and https only; anything else (file:, javascript:, custom schemes) is never opened. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}

/** Same document: scheme, host and path equal (query and fragment may differ). */
export function sameDocument(url: string, expected: string): boolean {
  try {
    const a = new URL(url);
    const b = new URL(expected);
    return a.protocol === b.protocol && a.host === b.host && decodeURIComponent(a.pathname) === decodeURIComponent(b.pathname);
  } catch {
    return false;
  }
}

/** Adds the CSP to every response of the session and refuses every permission request. */
export function installSessionSecurity(session: Session): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    const headers = { ...(details.responseHeaders ?? {}) };
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-security-policy') delete headers[name];
    headers['Content-Security-Policy'] = [CSP];
    callback({ responseHeaders: headers });
  });
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

/**
 * Blocks navigation away from the app's page, every new window and every webview; a link meant for a new window
 * opens in the user's browser when it is http(s).
 */
export function guardContents(contents: WebContents, appUrl: string, openExternal: (url: string) => unknown): void {
  contents.on('will-navigate', (event, url) => {
    if (!sameDocument(url, appUrl)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!sameDocument(url, appUrl)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) void openExternal(url);
    return { action: 'deny' };
  });
}

/** IPC is answered only for the app's own page, in the main frame of one of the app's windows. */
export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>, trustedContentsIds: readonly number[], appUrl: string): boolean {
  const frame = event.senderFrame;
  if (!frame) return false;
  if (!trustedContentsIds.includes(event.sender.id)) return false;
  if (frame.parent) return false;
  return sameDocument(frame.url, appUrl);
}
