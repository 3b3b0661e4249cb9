import { describe, expect, it } from 'vitest';
import { folderAs, freshAccount, uploadAs, useTestServer, type Answer } from '../helpers/server.js';
import { prefersHtml } from '../../server/negotiate.js';

/** What Firefox and Chrome send when the user opens an address. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const CSP = "default-src 'none'; style-src 'unsafe-inline'";

interface Entry {
  id: number;
  name: string;
}

const unescapeAttr = (s: string) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('the page of a folder link, for browsers', () => {
  const server = useTestServer({ tempDataDir: 'link-page-test' });

  const upload = (token: string, name: string, content: string, parentId?: number) => uploadAs(server, token, name, content, parentId);
  const folder = (token: string, name: string, parentId: number | null = null) => folderAs(server, token, name, parentId);
  const rename = async (token: string, id: number, name: string) => {
    const answer = await server.call(token, 'PUT', `/api/v1/file-entries/${id}`, { name });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.fileEntry.name).toBe(name);
  };
  const linkHash = async (token: string, id: number, body: unknown = {}): Promise<string> => {
    const answer = await server.call(token, 'POST', `/api/v1/file-entries/${id}/shareable-link`, body);
    expect(answer.status).toBe(200);
    return answer.body.link.hash;
  };

  const publicGet = (hash: string, query = '', headers: Record<string, string> = {}) =>
    server.call(null, 'GET', `/drive/s/${hash}${query}`, undefined, headers);
  const browse = (hash: string, query = '') => publicGet(hash, query, { accept: BROWSER });

  /** The page's links as absolute addresses, resolved as a browser would against the page's own address. */
  const linksOf = (answer: Answer, pageUrl: string) =>
    [...String(answer.body).matchAll(/<a href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)].map((m) => ({
      url: new URL(unescapeAttr(m[1]!), pageUrl),
      text: m[2]!,
    }));
  const pageUrl = (hash: string, query = '') => `${server.url}/drive/s/${hash}${query}`;
  const fetchText = async (url: URL, accept = BROWSER) => {
    const response = await fetch(url, { headers: { accept } });
    return { status: response.status, text: await response.text(), headers: response.headers };
  };

  const expectPage = (answer: Answer) => {
    expect(answer.status, String(answer.body).slice(0, 300)).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('content-security-policy')).toBe(CSP);
    expect(String(answer.body)).not.toMatch(/<script/i);
    expect(String(answer.body)).not.toMatch(/<[^>]*\son[a-z]+=/i);
    return String(answer.body);
  };

  /** A shared folder with two files and a subfolder holding a third, and a folder next to it that is not shared. */
  const fixture = async (label: string, linkBody: unknown = {}) => {
    const { token } = await freshAccount(server, label);
    const parent = await folder(token, `${label} parent`);
    const shared = await folder(token, 'Holiday photos', parent.id);
    const small = await upload(token, 'notes.txt', 'twelve bytes', shared.id);
    const big = await upload(token, 'big.bin', 'x'.repeat(1536), shared.id);
    const sub = await folder(token, 'Day two', shared.id);
    const deep = await upload(token, 'deep.txt', 'deep content', sub.id);
    const outside = await folder(token, 'Not shared', parent.id);
    const outsideFile = await upload(token, 'secret.txt', 'secret content', outside.id);
    const hash = await linkHash(token, shared.id, linkBody);
    return { token, parent, shared, small, big, sub, deep, outside, outsideFile, hash };
  };

  describe('content negotiation', () => {
    it('gives a browser HTML, and JSON to API clients, to */* and to no header', () => {
      expect(prefersHtml(BROWSER)).toBe(true);
      expect(prefersHtml('text/html')).toBe(true);
      expect(prefersHtml('text/*')).toBe(true);
      expect(prefersHtml(undefined)).toBe(false);
      expect(prefersHtml('')).toBe(false);
      expect(prefersHtml('*/*')).toBe(false);
      expect(prefersHtml('application/json')).toBe(false);
      expect(prefersHtml('application/json, text/plain, */*')).toBe(false);
      expect(prefersHtml('application/json, text/html;q=0.9')).toBe(false);
      expect(prefersHtml('text/html;q=0, */*')).toBe(false);
      expect(prefersHtml('text/html;level=1')).toBe(false);
      expect(prefersHtml('TEXT/HTML ; Q=1')).toBe(true);
      expect(prefersHtml('garbage, ;;, /')).toBe(false);
    });
  });

  it('keeps the JSON answer for clients that do not ask for HTML', async () => {
    const fx = await fixture('json');
    const expected = {
      link: { hash: fx.hash, entry_id: fx.shared.id, allow_download: true },
      folder: { id: fx.shared.id, name: 'Holiday photos' },
      folderChildren: expect.arrayContaining([
        { id: fx.small.id, name: 'notes.txt', type: 'text', file_size: 12 },
        { id: fx.big.id, name: 'big.bin', type: 'file', file_size: 1536 },
        { id: fx.sub.id, name: 'Day two', type: 'folder', file_size: 0 },
      ]),
    };
    for (const accept of ['application/json', '*/*', 'application/json, text/html;q=0.5', '']) {
      const answer = await publicGet(fx.hash, '', { accept });
      expect(answer.status, accept).toBe(200);
      expect(answer.headers.get('content-type'), accept).toMatch(/^application\/json/);
      expect(answer.body, accept).toEqual(expected);
      expect(Object.keys(answer.body)).toEqual(['link', 'folder', 'folderChildren']);
      expect(answer.body.folderChildren).toHaveLength(3);
      expect(answer.headers.get('vary')).toMatch(/accept/i);
    }
  });

  it('answers a browser a page listing the subfolders and the files, each file downloadable', async () => {
    const fx = await fixture('page');
    const answer = await browse(fx.hash);
    const html = expectPage(answer);
    expect(html).toContain('<title>Holiday photos</title>');
    expect(html).toContain('<h1>Holiday photos</h1>');
    expect(html).toContain('12 B');
    expect(html).toContain('1.5 KB');
    expect(html).not.toContain('deep.txt');
    expect(html).not.toContain('Not shared');
    expect(html).not.toContain('Parent folder');

    const links = linksOf(answer, pageUrl(fx.hash));
    const byText = (text: string) => links.find((l) => l.text.includes(text))!;
    expect(links).toHaveLength(3);
    expect(byText('Day two').url.searchParams.get('folder')).toBe(String(fx.sub.id));
    for (const [file, content] of [[fx.small, 'twelve bytes'], [fx.big, 'x'.repeat(1536)]] as const) {
      const link = byText(file.name);
      expect(link.url.pathname).toBe(`/drive/s/${fx.hash}`);
      const download = await fetchText(link.url);
      expect(download.status).toBe(200);
      expect(download.text).toBe(content);
      expect(download.headers.get('content-disposition')).toMatch(/^attachment;/);
    }
  });

  it('escapes every name on the page', async () => {
    const { token } = await freshAccount(server, 'hostile');
    const shared = await folder(token, 'Shared & "quoted"');
    await rename(token, shared.id, `<b>Shared</b> & "quoted" 'x'`);
    const file = await upload(token, 'plain.txt', 'hostile bytes', shared.id);
    const hostileFile = `<script>alert("x")</script> & 'q'.txt`;
    await rename(token, file.id, hostileFile);
    const sub = await folder(token, 'harmless', shared.id);
    const hostileFolder = `"><img src=x onerror=alert(1)>`;
    await rename(token, sub.id, hostileFolder);
    const hash = await linkHash(token, shared.id);

    const answer = await browse(hash);
    const html = expectPage(answer);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('<title>&lt;b&gt;Shared&lt;/b&gt; &amp; &quot;quoted&quot; &#39;x&#39;</title>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;.txt');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;/');
    const download = linksOf(answer, pageUrl(hash)).find((l) => l.url.searchParams.has('file'))!;
    expect((await fetchText(download.url)).text).toBe('hostile bytes');
  });

  it('lists the files without download links when the link does not allow downloads, and refuses the download', async () => {
    const fx = await fixture('nodl', { allow_download: false });
    const answer = await browse(fx.hash);
    const html = expectPage(answer);
    expect(html).toContain('Downloads are turned off');
    expect(html).toContain('notes.txt');
    expect(html).toContain('big.bin');
    const links = linksOf(answer, pageUrl(fx.hash));
    expect(links.map((l) => l.url.searchParams.get('folder'))).toEqual([String(fx.sub.id)]);
    expect(links.some((l) => l.url.searchParams.has('file'))).toBe(false);

    for (const accept of [BROWSER, 'application/json']) {
      const refused = await publicGet(fx.hash, `?file=${fx.small.id}`, { accept });
      expect(refused.status).toBe(403);
      expect(String(refused.body)).not.toContain('twelve bytes');
    }
    // The subfolder's page says the same.
    const sub = expectPage(await browse(fx.hash, `?folder=${fx.sub.id}`));
    expect(sub).toContain('Downloads are turned off');
    expect(sub).not.toContain('?file=');
  });

  it('opens a subfolder through the same link, and refuses what is outside the shared folder with 404', async () => {
    const fx = await fixture('sub');
    const root = await browse(fx.hash);
    const subLink = linksOf(root, pageUrl(fx.hash)).find((l) => l.text.includes('Day two'))!;
    const sub = await fetchText(subLink.url);
    expect(sub.status).toBe(200);
    expect(sub.headers.get('content-security-policy')).toBe(CSP);
    expect(sub.text).toContain('<h1>Day two</h1>');
    expect(sub.text).toContain('deep.txt');
    expect(sub.text).not.toContain('notes.txt');

    const subLinks = linksOf({ status: 200, body: sub.text, headers: sub.headers }, subLink.url.href);
    const up = subLinks.find((l) => l.text.includes('Parent folder'))!;
    expect(up.url.href).toBe(pageUrl(fx.hash));
    const deep = subLinks.find((l) => l.text.includes('deep.txt'))!;
    expect((await fetchText(deep.url)).text).toBe('deep content');

    // JSON clients reach the subfolder the same way.
    const json = await publicGet(fx.hash, `?folder=${fx.sub.id}`);
    expect(json.body.folder).toEqual({ id: fx.sub.id, name: 'Day two' });
    expect(json.body.folderChildren.map((c: Entry) => c.id)).toEqual([fx.deep.id]);

    for (const query of [
      `?folder=${fx.outside.id}`,
      `?folder=${fx.parent.id}`,
      `?file=${fx.outsideFile.id}`,
      `?folder=${fx.small.id}`,
      `?file=${fx.sub.id}`,
      '?folder=999999999',
    ]) {
      for (const accept of [BROWSER, 'application/json']) {
        const answer = await publicGet(fx.hash, query, { accept });
        expect(answer.status, `${query} ${accept}`).toBe(404);
        expect(String(JSON.stringify(answer.body))).not.toContain('secret');
      }
    }

    // A trashed subfolder is gone from the link too.
    const trashed = await server.call(fx.token, 'DELETE', '/api/v1/file-entries', { entryIds: [fx.sub.id], deleteForever: false });
    expect(trashed.status).toBe(200);
    expect((await browse(fx.hash, `?folder=${fx.sub.id}`)).status).toBe(404);
    expect((await browse(fx.hash, `?file=${fx.deep.id}`)).status).toBe(404);
    expect(expectPage(await browse(fx.hash))).not.toContain('Day two');
  });

  it('needs the password for the page and carries it on the page\'s links', async () => {
    const password = 'p@ss word&more';
    const fx = await fixture('locked', { password });
    const form = await browse(fx.hash, `?folder=${fx.sub.id}`);
    expect(form.status).toBe(401);
    expect(String(form.body)).toMatch(/<form/);
    expect(String(form.body)).toContain(`<input type="hidden" name="folder" value="${fx.sub.id}">`);
    expect(String(form.body)).not.toContain('deep.txt');
    expect((await browse(fx.hash, `?file=${fx.small.id}`)).status).toBe(401);
    expect((await browse(fx.hash, '?password=wrong')).status).toBe(401);

    const query = `?password=${encodeURIComponent(password)}`;
    const answer = await browse(fx.hash, query);
    expectPage(answer);
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    const links = linksOf(answer, pageUrl(fx.hash, query));
    expect(links.length).toBe(3);
    for (const link of links) expect(link.url.searchParams.get('password')).toBe(password);
    const download = links.find((l) => l.text.includes('notes.txt'))!;
    expect((await fetchText(download.url)).text).toBe('twelve bytes');
    const sub = await fetchText(links.find((l) => l.text.includes('Day two'))!.url);
    expect(sub.status).toBe(200);
    expect(sub.text).toContain('deep.txt');
  });

  it('keeps serving a file link\'s bytes to a browser', async () => {
    const { token } = await freshAccount(server, 'filelink');
    const file = await upload(token, 'page.html', '<h1>not a listing</h1>');
    const hash = await linkHash(token, file.id);
    const answer = await browse(hash);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('<h1>not a listing</h1>');
    expect(answer.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect((await browse(hash, `?file=${file.id}`)).body).toBe('<h1>not a listing</h1>');
    expect((await browse(hash, `?folder=${file.id}`)).status).toBe(404);
  });
});
