import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { startServer, type RunningServer, type ServerOptions } from '../../server/app.js';
import { PROFILE_NAMES, type ProfileName } from '../../server/profile.js';
import { tempDir } from './temp.js';

/** The server's profiles, for `describe.each(PROFILES)`: the documents' answers and the deployed versions'. */
export const PROFILES: readonly ProfileName[] = PROFILE_NAMES;
export type { ProfileName };

export interface TestServer extends RunningServer {
  /** The profile it answers in (`startTestServer({ profile })`, default `documents`). */
  profile: ProfileName;
  /** Registers an account and answers its id and token. */
  register(email: string, password?: string): Promise<{ id: number; token: string }>;
  /** A request with a bearer token; the body is JSON unless it is FormData. */
  call(token: string | null, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
}

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * The real reference server on a free loopback port, with its data in a fresh temp dir.
 * `startTestServer({ profile: 'deployed' })` answers as the deployed versions do.
 */
export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  const running = await startServer({ port: 0, ...options });
  const call: TestServer['call'] = async (token, method, path, body, headers = {}) => {
    const init: RequestInit = { method, headers: { accept: 'application/json', ...headers } };
    if (token) (init.headers as Record<string, string>).authorization = `Bearer ${token}`;
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${running.url}${path}`, init);
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  const register: TestServer['register'] = async (email, password = 'secret-password') => {
    // The deployed profile requires the confirmation and nests the user under bootstrapData.
    const answer = await call(null, 'POST', '/api/v1/auth/register', { email, password, password_confirmation: password, token_name: 'test' });
    if (answer.status !== 200) throw new Error(`register ${email}: ${answer.status} ${JSON.stringify(answer.body)}`);
    const user = answer.body.user ?? answer.body.bootstrapData.user;
    return { id: user.id, token: user.access_token };
  };
  return { ...running, profile: running.context.profile.name, call, register };
}

/**
 * Every active entry of the caller's drive through the raw API, in either profile: the listing without a selector
 * (the whole drive, or the root's children only as deployed), then the folders breadth-first by `parentIds`.
 */
export async function wholeDrive(server: TestServer, token: string): Promise<any[]> {
  const listAll = async (query: string) => {
    const out: any[] = [];
    for (let page = 1; ; page++) {
      const answer = await server.call(token, 'GET', `/api/v1/drive/file-entries?perPage=1000&page=${page}${query}`);
      if (answer.status !== 200) throw new Error(`listing ${query}: ${answer.status} ${JSON.stringify(answer.body)}`);
      const data = Array.isArray(answer.body) ? answer.body : answer.body.data;
      out.push(...data);
      if (Array.isArray(answer.body) ? data.length < 1000 : !answer.body.next_page) return out;
    }
  };
  const byId = new Map<number, any>();
  let frontier: number[] = [];
  for (const entry of await listAll('')) {
    byId.set(entry.id, entry);
    if (entry.type === 'folder') frontier.push(entry.id);
  }
  while (frontier.length > 0) {
    const children = await listAll(`&parentIds=${frontier.join(',')}`);
    frontier = [];
    for (const entry of children) {
      if (byId.has(entry.id)) continue;
      byId.set(entry.id, entry);
      if (entry.type === 'folder') frontier.push(entry.id);
    }
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** A multipart upload body: file content plus the document's optional parts. */
export function uploadForm(name: string, content: string | Uint8Array, fields: { parentId?: number | null; relativePath?: string } = {}): FormData {
  const form = new FormData();
  if (fields.parentId !== undefined) form.append('parentId', fields.parentId === null ? 'null' : String(fields.parentId));
  if (fields.relativePath !== undefined) form.append('relativePath', fields.relativePath);
  form.append('file', new Blob([content]), name);
  return form;
}

/** What useTestServer takes: the server's options, and what to do around it. */
export interface TestServerOptions extends ServerOptions {
  /** Keep the server's data in a new temp dir of this prefix, removed after the tests (else the server makes one and leaves it). */
  tempDataDir?: string;
  /** Runs after the tests, just before the server closes. */
  beforeClose?: () => void;
}

/**
 * A test server for the tests of the calling file or describe block: started in a beforeAll, closed in an afterAll.
 * `useTestServer({ profile: 'deployed' })` answers as the deployed versions do.
 * What it answers stands for the server started then, so use it inside tests and hooks, not while they are collected.
 */
export function useTestServer(options: TestServerOptions = {}): TestServer {
  const { tempDataDir, beforeClose, ...serverOptions } = options;
  let started: TestServer | undefined;
  let dataDir: string | undefined;
  beforeAll(async () => {
    if (tempDataDir !== undefined) dataDir = tempDir(tempDataDir);
    started = await startTestServer(dataDir === undefined ? serverOptions : { ...serverOptions, dataDir });
  });
  afterAll(async () => {
    beforeClose?.();
    await started?.close();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });
  return new Proxy({} as TestServer, {
    get(_target, key) {
      if (!started) throw new Error(`the test server is not started yet (reading ${String(key)}): use it inside tests and hooks`);
      return Reflect.get(started, key);
    },
    has: (_target, key) => started !== undefined && key in started,
  });
}

/** An account on the test server, registered with the default password. */
export interface Account {
  id: number;
  token: string;
  email: string;
}

let accounts = 0;

/** Registers a fresh account, under a unique e-mail `<label>-<n>-<random>@example.com`. */
export async function freshAccount(server: TestServer, label: string): Promise<Account> {
  const email = `${label}-${++accounts}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const { id, token } = await server.register(email);
  return { id, token, email };
}

/** Every route the server serves, as `METHOD /path` (HEAD left out), read from fastify's drawing of its router. */
export function servedRoutes(server: RunningServer): Set<string> {
  // printRoutes draws the router's tree: "│   ├── /segment (GET, HEAD)", four columns per level.
  const served = new Set<string>();
  const stack: string[] = [];
  for (const line of server.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + match[2]!;
    stack[depth] = path;
    for (const method of (match[3] ?? '').split(', ').filter((m) => m !== '' && m !== 'HEAD')) served.add(`${method} ${path}`);
  }
  return served;
}

/** An entry as the server answers it, with what the tests read of it. */
export interface MadeEntry {
  id: number;
  name: string;
  hash: string;
  url: string | null;
}

/** Uploads a file as `token`'s account (201 expected) and answers its entry. */
export async function uploadAs(server: TestServer, token: string, name: string, content: string, parentId?: number): Promise<MadeEntry> {
  const answer = await server.call(token, 'POST', '/api/v1/uploads', uploadForm(name, content, { parentId }));
  expect(answer.status).toBe(201);
  return (answer.body as { fileEntry: MadeEntry }).fileEntry;
}

/** Makes a folder as `token`'s account (200 expected) and answers its entry. */
export async function folderAs(server: TestServer, token: string, name: string, parentId: number | null = null): Promise<MadeEntry> {
  const answer = await server.call(token, 'POST', '/api/v1/folders', { name, parentId });
  expect(answer.status).toBe(200);
  return (answer.body as { folder: MadeEntry }).folder;
}
