/**
 * What a running engine keeps in memory is mostly code it loaded at start. Two things it does not need stay out:
 * TypeBox (the service's answers are checked by functions compiled ahead of time; TypeBox is loaded only to word a
 * mismatch) and ICU's list patterns (got's option checker builds list formatters as it is imported; they are built
 * on first use instead). Checked on the real binary, syncing a folder with the reference server, with a recorder
 * loaded ahead of it (`--import`) that notes every module loaded and every `Intl.ListFormat` really built.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cli, makeTree, newAccount, ROOT, tempDir, useCliTestServer } from './helpers.js';

const server = useCliTestServer();

/** A module for `--import`: records loaded modules (through a loader hook) and built list formatters in OUT. */
function recorder(dir: string): { flag: string; read(): { modules: string[]; listFormatsBuilt: number } } {
  const out = join(dir, 'recorded.txt');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(out)}, 'module ' + url + '\\n');
  return next(url, context);
}
`,
  );
  const entry = join(dir, 'record.mjs');
  writeFileSync(
    entry,
    `import { register } from 'node:module';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(pathToFileURL(hooks).href)});
const Native = Intl.ListFormat;
let built = 0;
Intl.ListFormat = new Proxy(Native, { construct(target, args) { built++; return new target(...args); } });
process.on('exit', () => appendFileSync(${JSON.stringify(out)}, 'list-formats-built ' + built + '\\n'));
`,
  );
  return {
    flag: `--import=${pathToFileURL(entry).href}`,
    read() {
      const lines = readFileSync(out, 'utf8').split('\n');
      return {
        modules: lines.filter((l) => l.startsWith('module ')).map((l) => l.slice('module '.length)),
        listFormatsBuilt: Number(lines.find((l) => l.startsWith('list-formats-built '))?.split(' ')[1] ?? NaN),
      };
    },
  };
}

describe('what a running engine loads', () => {
  it('`sync DIR --once` loads no TypeBox and builds no list formatter, and syncs', async () => {
    const dir = tempDir();
    const record = recorder(dir);
    const folder = join(dir, 'Drive');
    makeTree(folder, { 'a.txt': 'a', 'sub/b.txt': 'b' });
    const account = await newAccount(server);
    const result = await cli(['sync', folder, '--once'], {
      home: tempDir('home'),
      env: { DRIVESYNC_SERVER: server.url, DRIVESYNC_TOKEN: account.token, NODE_OPTIONS: record.flag },
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const { modules, listFormatsBuilt } = record.read();
    // The recorder saw the engine's own modules and got's: it was in place.
    expect(modules.some((m) => m.endsWith('/dist/main/sync/engine/engine.js'))).toBe(true);
    expect(modules.some((m) => m.includes('/node_modules/got/'))).toBe(true);
    expect(modules.filter((m) => m.includes('@sinclair/typebox'))).toEqual([]);
    expect(listFormatsBuilt).toBe(0);
  });

  it('got words its option errors as before, and Intl.ListFormat is the real one again once got is in', () => {
    const dir = tempDir();
    const record = recorder(dir);
    const script = `
const before = Intl.ListFormat;
await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/main/api/http.js')).href)});
const { Options } = await import('got');
let message = '';
try { new Options(5); } catch (error) { message = error.message; }
console.log(JSON.stringify({ restored: Intl.ListFormat === before, message }));
`;
    const run = spawnSync(process.execPath, [record.flag, '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const { restored, message } = JSON.parse(run.stdout) as { restored: boolean; message: string };
    expect(restored).toBe(true);
    expect(message).toMatch(/`string`, `URL`, `Object`, or `undefined`/);
    // Built when the message was worded, not before.
    expect(record.read().listFormatsBuilt).toBe(2);
  });
});
