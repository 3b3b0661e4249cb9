/** The CSP (header and meta tag), the sender check and the external-link rule, as pure functions. */
import { describe, expect, it } from 'vitest';
import { CSP, CSP_META } from '../../main/app/csp.js';
import { isSafeExternalUrl, isTrustedSender, sameDocument } from '../../main/app/security.js';
import { rendererConfig } from '../../vite.renderer.config.js';

describe('the content security policy', () => {
  const directives = (policy: string) => new Map(policy.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));

  it('allows only the app own scripts and styles: no inline code, no eval, no network, no framing', () => {
    const csp = directives(CSP);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'none'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(CSP).not.toMatch(/unsafe-inline|unsafe-eval|\*|http:|https:/);
  });

  it('goes into index.html as a meta tag, the same policy less frame-ancestors', () => {
    expect(directives(CSP_META)).toEqual(new Map([...directives(CSP)].filter(([name]) => name !== 'frame-ancestors')));
    const plugin = rendererConfig('/tmp/unused').plugins!.flat().find((p) => p && typeof p === 'object' && 'name' in p && p.name === 'drivesync-csp-meta') as unknown as {
      transformIndexHtml: () => Array<{ tag: string; attrs: Record<string, string>; injectTo: string }>;
    };
    expect(plugin.transformIndexHtml()).toEqual([{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP_META }, injectTo: 'head-prepend' }]);
  });
});

describe('the IPC sender check', () => {
  const appUrl = 'file:///opt/drivesync/resources/app.asar/dist/renderer/index.html';
  const event = (id: number, url: string | null, parent: unknown = null) => ({ sender: { id }, senderFrame: url === null ? null : { url, parent } }) as never;

  it('accepts only the app page in the main frame of the app window', () => {
    expect(isTrustedSender(event(7, appUrl), [7], appUrl)).toBe(true);
    expect(isTrustedSender(event(7, `${appUrl}#settings`), [7], appUrl)).toBe(true);
    expect(isTrustedSender(event(8, appUrl), [7], appUrl)).toBe(false);
    expect(isTrustedSender(event(7, 'https://evil.example/dist/renderer/index.html'), [7], appUrl)).toBe(false);
    expect(isTrustedSender(event(7, 'file:///tmp/evil.html'), [7], appUrl)).toBe(false);
    expect(isTrustedSender(event(7, appUrl, { url: appUrl }), [7], appUrl)).toBe(false);
    expect(isTrustedSender(event(7, null), [7], appUrl)).toBe(false);
    expect(isTrustedSender(event(7, appUrl), [], appUrl)).toBe(false);
  });

  it('compares documents by scheme, host and path', () => {
    expect(sameDocument('http://127.0.0.1:5/index.html?x#y', 'http://127.0.0.1:5/index.html')).toBe(true);
    expect(sameDocument('http://127.0.0.1:6/index.html', 'http://127.0.0.1:5/index.html')).toBe(false);
    expect(sameDocument('garbage', 'http://127.0.0.1:5/index.html')).toBe(false);
  });

  it('opens only http(s) links outside the app', () => {
    for (const ok of ['https://example.com', 'http://127.0.0.1:8080/drive/s/abc']) expect(isSafeExternalUrl(ok)).toBe(true);
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,hi', 'vbscript:x', 'ms-msdt:x', '', 'https://']) expect(isSafeExternalUrl(bad)).toBe(false);
  });
});
