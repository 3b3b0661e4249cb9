/**
 * The window's Content-Security-Policy. It allows the app's own scripts, styles and images and nothing else: no
 * inline code, no eval, no network (the window talks to the app only through the preload's IPC). The same policy
 * goes out as a response header on the app's session and as a meta tag in index.html (see vite.renderer.config.ts);
 * `frame-ancestors` is left out of the meta tag, where browsers ignore it.
 */
export const CSP_DIRECTIVES: ReadonlyArray<readonly [string, string]> = [
  ['default-src', "'none'"],
  ['script-src', "'self'"],
  ['style-src', "'self'"],
  ['img-src', "'self' data:"],
  ['font-src', "'self'"],
  ['connect-src', "'none'"],
  ['media-src', "'none'"],
  ['object-src', "'none'"],
  ['frame-src', "'none'"],
  ['worker-src', "'none'"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
  ['frame-ancestors', "'none'"],
];

export const CSP = CSP_DIRECTIVES.map(([name, value]) => `${name} ${value}`).join('; ');

export const CSP_META = CSP_DIRECTIVES.filter(([name]) => name !== 'frame-ancestors')
  .map(([name, value]) => `${name} ${value}`)
  .join('; ');
