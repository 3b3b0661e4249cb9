/**
 * The window without Electron: the built renderer served over http on 127.0.0.1 under the app's CSP, with the page
 * bridge (page-bridge.ts) that gives it `window.drivesync` as the preload does. The renderer tests and
 * `npm run window` (preview.ts) both serve it from here.
 *
 * - Without a host (the tests): the files only, under the app's own CSP; the test adds the bridge as an init script
 *   and carries calls and events itself (playwright's exposeFunction and evaluate).
 * - With a host (`npm run window`): index.html also loads the bridge, calls are POSTed to `INVOKE_PATH/CHANNEL` and
 *   answered through the same dispatch the main process uses, and the host's events go out as server-sent events on
 *   `EVENTS_PATH`. The one change to the CSP is `connect-src 'self'`, which those two need. Only requests for this
 *   address (the Host header) are answered, and calls only from this page (its Origin), so another site open in the
 *   same browser cannot make them.
 */
import { readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';
import { EVENT_NAMES, INVOKE_CHANNELS, ipcEventChannel, ipcInvokeChannel, type EventName } from '../../main/contract/index.js';
import { CSP } from '../../main/app/csp.js';
import { dispatch } from '../../main/app/host/dispatch.js';
import type { DesktopHost } from '../../main/app/host/host.js';
import { BRIDGE_PATH, EVENTS_PATH, INVOKE_PATH } from './paths.js';

export { BRIDGE_PATH, EVENTS_PATH, INVOKE_PATH } from './paths.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** The built renderer, as `npm run build` leaves it. */
export const BUILT_RENDERER = resolve(HERE, '..', '..', 'dist', 'renderer');

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.svg': 'image/svg+xml' };
/** The largest call argument the server reads (a settings form with long ignore rules is a few KB). */
const MAX_BODY = 1024 * 1024;

/** The page bridge as one classic script (an IIFE) for the page. */
export async function bundleBridge(): Promise<string> {
  const result = await esbuild({ entryPoints: [join(HERE, 'page-bridge.ts')], bundle: true, format: 'iife', write: false, target: 'chrome120', logLevel: 'warning' });
  return result.outputFiles[0]!.text;
}

const BY_IPC_CHANNEL = new Map<string, string>(INVOKE_CHANNELS.map((channel) => [ipcInvokeChannel(channel), channel]));
/** The call an IPC channel names, as the main process reads it (an unknown one stays as it is: dispatch refuses it). */
export const callOfIpcChannel = (ipcChannel: string): string => BY_IPC_CHANNEL.get(ipcChannel) ?? ipcChannel;

/** Every event of the host, as its IPC channel and payload, to `send`; answers the function that stops it. */
export function relayEvents(host: DesktopHost, send: (channel: string, payload: unknown) => void): () => void {
  const offs = EVENT_NAMES.map((name: EventName) => {
    const listener = (payload: unknown) => send(ipcEventChannel(name), payload);
    host.on(name, listener as never);
    return () => host.off(name, listener as never);
  });
  return () => offs.forEach((off) => off());
}

/** The app's CSP, with the page allowed to call back its own server (the preview's bridge); as a header or in HTML. */
export const previewCsp = (csp: string) => csp.replace(/connect-src (?:'|&#39;)none(?:'|&#39;)/, (found) => found.replace(/none/, 'self'));

export interface WindowServer {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  server: Server;
  close(): Promise<void>;
}

export interface WindowServerOptions {
  /** The built renderer (default: dist/renderer). */
  dir?: string;
  /** Carry the page's calls and events to this host over http (see above); without it, files only. */
  host?: DesktopHost;
  /** 0 (default) for a free one. */
  port?: number;
}

export async function serveWindow(options: WindowServerOptions = {}): Promise<WindowServer> {
  const dir = resolve(options.dir ?? BUILT_RENDERER);
  const { host } = options;
  const csp = host ? previewCsp(CSP) : CSP;
  const bridge = host ? `globalThis.__drivesyncTransport = 'http';\n${await bundleBridge()}` : null;
  const streams = new Set<ServerResponse>();
  const stopRelay = host
    ? relayEvents(host, (channel, payload) => {
        const data = `data: ${JSON.stringify({ channel, payload })}\n\n`;
        for (const stream of streams) stream.write(data);
      })
    : () => undefined;
  let origin = '';

  const page = (): Buffer => {
    const html = readFileSync(join(dir, 'index.html'), 'utf8');
    if (!host) return Buffer.from(html);
    // The bridge before the app, as a classic script: it runs before the app's module, as the preload does.
    const script = `<script src="${BRIDGE_PATH}"></script>\n    `;
    const at = html.search(/<script\b/i);
    const withBridge = at >= 0 ? html.slice(0, at) + script + html.slice(at) : html.replace(/<\/head>/i, `${script}</head>`);
    return Buffer.from(withBridge.replace(/(http-equiv="Content-Security-Policy" content=")([^"]*)"/i, (_, start: string, policy: string) => `${start}${previewCsp(policy)}"`));
  };

  const file = (res: ServerResponse, path: string) => {
    const target = normalize(join(dir, path === '/' ? 'index.html' : path));
    try {
      if (!target.startsWith(dir + sep) || !statSync(target).isFile()) throw new Error('not found');
      const body = target === join(dir, 'index.html') ? page() : readFileSync(target);
      res.writeHead(200, { 'content-type': TYPES[extname(target)] ?? 'application/octet-stream', 'content-security-policy': csp, 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-security-policy': csp }).end('not found');
    }
  };

  const invoke = async (req: IncomingMessage, res: ServerResponse, channel: string) => {
    // Only this page calls: a form or a script of another site sends another Origin (or none, for a form's GET).
    if (req.method !== 'POST' || req.headers.origin !== origin || !/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
      res.writeHead(403).end('forbidden');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY) {
        res.writeHead(413).end('too large');
        return;
      }
      chunks.push(chunk);
    }
    let arg: unknown;
    try {
      arg = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { arg?: unknown }).arg ?? null;
    } catch {
      res.writeHead(400).end('not JSON');
      return;
    }
    // The same check and answer as the main process's IPC: the channel and argument checked, a Result back.
    const result = await dispatch(host!, callOfIpcChannel(channel), arg);
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(result));
  };

  const events = (req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(': drivesync events\n\n');
    streams.add(res);
    req.on('close', () => streams.delete(res));
  };

  const server = createServer((req, res) => {
    // A name that points here from elsewhere (DNS rebinding) is not this page's address.
    if (req.headers.host !== new URL(origin).host) {
      res.writeHead(421).end('misdirected');
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', origin).pathname);
    } catch {
      res.writeHead(400).end('bad path');
      return;
    }
    if (host && path === BRIDGE_PATH) {
      res.writeHead(200, { 'content-type': 'text/javascript', 'content-security-policy': csp, 'cache-control': 'no-store' }).end(bridge);
    } else if (host && path.startsWith(`${INVOKE_PATH}/`)) {
      invoke(req, res, path.slice(INVOKE_PATH.length + 1)).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    } else if (host && path === EVENTS_PATH) {
      events(req, res);
    } else if (req.method === 'GET' || req.method === 'HEAD') {
      file(res, path);
    } else {
      res.writeHead(405).end();
    }
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, '127.0.0.1', () => done());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/`,
    server,
    close: async () => {
      stopRelay();
      for (const stream of streams) stream.end();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
