/**
 * Running the real `drivesync` binary (`node bin/drivesync.js`, built into dist/) in tests: each call gets its own
 * DRIVESYNC_HOME, and by default no D-Bus session (so no keychain answers and the CLI uses its 0600 fallback file);
 * `inKeyring` runs commands inside a private `dbus-run-session` with an unlocked gnome-keyring.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { useTestServer, wholeDrive, type ProfileName, type TestServer } from '../helpers/server.js';
import { tempDir as makeTempDir } from '../helpers/temp.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, 'bin', 'drivesync.js');

if (!existsSync(join(ROOT, 'dist', 'main', 'cli', 'index.js'))) {
  throw new Error('dist/main/cli/index.js is missing: the CLI tests spawn the built binary. Run `npm run build` first (`npm test` does).');
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const temps: string[] = [];
const children = new Set<ChildProcess>();

/** A temp folder (helpers/temp.ts) that cleanUp removes after the file's tests. */
export function tempDir(name = 'cli'): string {
  const dir = makeTempDir(name);
  temps.push(dir);
  return dir;
}

/** Removes what the tests of a file made; kills what they left running. */
export function cleanUp(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * The reference server for the CLI tests of the calling file: started before them; after them, what the CLI runs
 * left is removed (cleanUp) and the server closed.
 */
export function useCliTestServer(options: { profile?: ProfileName; latencyMs?: number } = {}): TestServer {
  return useTestServer({ ...options, beforeClose: cleanUp });
}

/** The environment of a spawned CLI: its own state dir, no keychain session, no overrides unless given. */
export function cliEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DRIVESYNC_HOME: home };
  for (const key of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'DRIVESYNC_TOKEN', 'DRIVESYNC_SERVER']) delete env[key];
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface RunOptions {
  home: string;
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
  cwd?: string;
  /** A command the CLI runs under (e.g. setpriv), before node. */
  prefix?: readonly string[];
}

function collect(child: ChildProcess, label: string, timeoutMs: number, input?: string, keepStdin = false): Promise<Finished> {
  children.add(child);
  return new Promise((done, fail) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`${label} did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      done({ code, signal, stdout, stderr });
    });
    if (child.stdin) {
      if (input !== undefined) child.stdin.end(input);
      else if (!keepStdin) child.stdin.end();
    }
  });
}

/** Runs `drivesync ARGS` to its end. */
export function cli(args: readonly string[], options: RunOptions): Promise<Finished> {
  const [command, ...rest] = [...(options.prefix ?? []), process.execPath, BIN, ...args];
  const child = spawn(command!, rest, {
    cwd: options.cwd ?? ROOT,
    env: cliEnv(options.home, options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return collect(child, `drivesync ${args.join(' ')}`, options.timeoutMs ?? 20_000, options.input);
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `drivesync ARGS` on a pseudo-terminal (util-linux `script`), so stdin and stdout are TTYs. */
export function cliOnTty(args: readonly string[], options: RunOptions & { onOutput?: (all: string, child: ChildProcess) => void }): Promise<Finished> {
  // `exec`: the shell `script` starts (dash where SHELL is unset, as in CI) would otherwise stay in the terminal's
  // foreground group and die of a Ctrl-C, so the exit code would be the shell's 130, not drivesync's.
  const command = `exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: options.cwd ?? ROOT,
    env: { ...cliEnv(options.home, options.env), TERM: 'xterm-256color', COLUMNS: '160', LINES: '40' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (options.onOutput) {
    let all = '';
    child.stdout!.on('data', (chunk: Buffer | string) => {
      all += chunk.toString();
      options.onOutput!(all, child);
    });
  }
  // The terminal's input stays open: a question may be answered through it.
  const finished = collect(child, `drivesync ${args.join(' ')} (on a tty)`, options.timeoutMs ?? 30_000, options.input, true);
  return finished;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Waits until stdout matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Sends a signal and answers how the process ended (SIGKILL after `ms`, failing). */
  stop(signal?: NodeJS.Signals, ms?: number): Promise<Finished>;
  /** Waits for the process to end by itself (SIGKILL after `ms`, failing). */
  exited(ms?: number): Promise<Finished>;
}

/** Starts `drivesync ARGS` and leaves it running. */
export function spawnCli(args: readonly string[], options: RunOptions): Running {
  const [command, ...rest] = [...(options.prefix ?? []), process.execPath, BIN, ...args];
  const child = spawn(command!, rest, {
    cwd: options.cwd ?? ROOT,
    env: cliEnv(options.home, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  let exited: Finished | null = null;
  const waiters: Array<() => void> = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const w of waiters.splice(0)) w();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = new Promise<Finished>((done) =>
    child.on('close', (code, signal) => {
      children.delete(child);
      exited = { code, signal, stdout, stderr };
      for (const w of waiters.splice(0)) w();
      done(exited);
    }),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor: (pattern, timeoutMs = 20_000) =>
      new Promise((found, fail) => {
        const timer = setTimeout(() => fail(new Error(`no ${pattern} in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`)), timeoutMs);
        const check = () => {
          const match = pattern.exec(stdout);
          if (match) {
            clearTimeout(timer);
            return found(match);
          }
          if (exited) {
            clearTimeout(timer);
            return fail(new Error(`exited (${exited.code ?? exited.signal}) before ${pattern}\nstdout: ${stdout}\nstderr: ${stderr}`));
          }
          waiters.push(check);
        };
        check();
      }),
    exited: async (ms = 20_000) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, fail) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          fail(new Error(`did not exit by itself within ${ms} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
        }, ms);
      });
      try {
        return await Promise.race([closed, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    stop: async (signal = 'SIGTERM', ms = 10_000) => {
      if (!exited) child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, fail) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          fail(new Error(`did not exit within ${ms} ms of ${signal}\nstdout: ${stdout}\nstderr: ${stderr}`));
        }, ms);
      });
      try {
        return await Promise.race([closed, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Runs a shell script inside a private D-Bus session with an unlocked gnome-keyring (its own throwaway HOME), so
 * keytar has a real Secret Service to talk to. `ds` in the script is the drivesync command.
 */
export function inKeyring(script: string, options: RunOptions): Promise<Finished> {
  const keyringHome = tempDir('keyring');
  const setup = [
    'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 97',
    'ds() { "$DS_NODE" "$DS_BIN" "$@"; }',
  ].join('\n');
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', `${setup}\n${script}`], {
    cwd: options.cwd ?? ROOT,
    env: { ...cliEnv(options.home, options.env), HOME: keyringHome, XDG_DATA_HOME: join(keyringHome, 'data'), DS_NODE: process.execPath, DS_BIN: BIN },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return collect(child, 'keyring script', options.timeoutMs ?? 30_000, options.input);
}

/** A usage or user error: exactly one line on stderr, prefixed, without a stack trace. */
export function expectOneLineError(result: Finished, pattern?: RegExp): void {
  const lines = result.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^drivesync: \S/);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toMatch(/Error:|TypeError|node:internal/);
  if (pattern) expect(lines[0]).toMatch(pattern);
}

/** No stack trace, whatever else is on stderr. */
export function expectNoStack(result: Finished): void {
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toMatch(/node:internal|TypeError|ReferenceError/);
}

let counter = 0;

export interface TestAccount {
  email: string;
  password: string;
  token: string;
  id: number;
}

/** Registers an account through the API (not the CLI). */
export async function newAccount(server: TestServer, name = 'user'): Promise<TestAccount> {
  const email = `${name}-${++counter}-${process.pid}@example.com`;
  const password = `pw-${Math.random().toString(36).slice(2)}-${counter}`;
  const { id, token } = await server.register(email, password);
  return { email, password, token, id };
}

/** A state dir signed in to the account through `drivesync login` (the token lands in the fallback file). */
export async function signedInHome(server: TestServer, account: TestAccount): Promise<string> {
  const home = tempDir('home');
  const result = await cli(['login', '--server', server.url, '--email', account.email, '--password-stdin'], { home, input: `${account.password}\n` });
  expect(result.code, result.stderr).toBe(0);
  return home;
}

/** What `drivesync status --json` prints. */
export interface StatusJson {
  account: string | null;
  server: string | null;
  signedIn: boolean;
  tokenSource: string | null;
  stateDir: string;
  roots: Array<{
    path: string;
    state: string;
    running: boolean;
    detail: string | null;
    inSync: boolean | null;
    offline: { since: string; reason: string; waitingUp?: number } | null;
    lastSync: string | null;
    counts: { synced: number; done: number; failed: number } | null;
    errors: Array<{ path: string; message: string }>;
  }>;
}

/** Runs `drivesync status --json`, checks it exits 0, and answers what it printed. */
export async function statusJson(home: string, env: Record<string, string | undefined> = {}): Promise<StatusJson> {
  const result = await cli(['status', '--json'], { home, env });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as StatusJson;
}

/** A folder with files: path → content (folders are made as needed). */
export function makeTree(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, ...path.split('/'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/** Every regular file under a folder, with its content. */
export function allFiles(dir: string): Array<{ path: string; content: Buffer; mode: number }> {
  const out: Array<{ path: string; content: Buffer; mode: number }> = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const info = statSync(path);
      if (info.isDirectory()) walk(path);
      else if (info.isFile()) out.push({ path, content: readFileSync(path), mode: info.mode & 0o777 });
    }
  };
  walk(dir);
  return out;
}

/** The remote drive as path → content ('/' for folders), read through the API with a token. */
export async function remoteTree(server: TestServer, token: string): Promise<Record<string, string>> {
  const byId = new Map<number, { name: string; parent: number | null; type: string }>();
  for (const e of await wholeDrive(server, token)) byId.set(e.id, { name: e.name, parent: e.parent_id ?? null, type: e.type });
  const pathOf = (id: number): string => {
    const e = byId.get(id)!;
    return e.parent === null ? e.name : `${pathOf(e.parent)}/${e.name}`;
  };
  const out: Record<string, string> = {};
  for (const [id, e] of [...byId].sort(([a], [b]) => a - b)) {
    if (e.type === 'folder') out[pathOf(id)] = '/';
    else {
      const response = await fetch(`${server.url}/api/v1/file-entries/${id}`, { headers: { authorization: `Bearer ${token}` } });
      out[pathOf(id)] = await response.text();
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

