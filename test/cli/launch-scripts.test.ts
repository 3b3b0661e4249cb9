/**
 * The npm scripts that launch things: `npm run demo` and `npm start` build only when a source changed since the last
 * build, and `npm start` / `npm run dist` say at once, in one line, that the Electron binary is missing.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, ROOT, tempDir } from './helpers.js';

afterAll(() => cleanUp());

const BUILD_IF_STALE = join(ROOT, 'scripts', 'build-if-stale.mjs');
const CHECK_ELECTRON = join(ROOT, 'scripts', 'check-electron.mjs');

/** Lines a person reads on stderr (npm's own warnings about the machine's npmrc aside). */
const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('npm warn'));

/**
 * A small project laid out as this one (sources in main/, the build's output in dist/): its build counts how often
 * it ran, then records the stamp as `npm run build` does; it fails when FAIL_BUILD is set.
 */
function smallProject(): string {
  const dir = tempDir('project');
  mkdirSync(join(dir, 'main'));
  writeFileSync(join(dir, 'main', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(
    join(dir, 'build.mjs'),
    [
      "import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';",
      "if (process.env.FAIL_BUILD) { console.error('error TS1005: something broke'); process.exit(2); }",
      "appendFileSync('builds.txt', 'x');",
      "mkdirSync('dist/main/cli', { recursive: true });",
      "writeFileSync('dist/main/cli/index.js', '');",
    ].join('\n'),
  );
  const build = `node build.mjs && node ${JSON.stringify(BUILD_IF_STALE)} --record`;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'small', version: '1.0.0', private: true, scripts: { build } }));
  return dir;
}

describe('building only what changed', () => {
  it('builds when there is no build, a source changed or appeared, or the output is gone; otherwise not', () => {
    const project = smallProject();
    const run = (env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [BUILD_IF_STALE], { cwd: project, env: { ...process.env, DRIVESYNC_PROJECT: project, ...env }, encoding: 'utf8' });
    const builds = () => readFileSync(join(project, 'builds.txt'), 'utf8').length;

    expect(run().status).toBe(0);
    expect(builds()).toBe(1);

    const unchanged = run();
    expect(unchanged.status).toBe(0);
    expect(unchanged.stderr).toContain('dist/ is up to date with the sources; not rebuilding');
    expect(builds()).toBe(1);

    const later = new Date(Date.now() + 60_000);
    utimesSync(join(project, 'main', 'a.ts'), later, later);
    expect(run().status).toBe(0);
    expect(builds()).toBe(2);

    writeFileSync(join(project, 'main', 'b.ts'), 'export const b = 2;\n');
    expect(run().status).toBe(0);
    expect(builds()).toBe(3);
    expect(run().stderr).toContain('not rebuilding');

    rmSync(join(project, 'dist', 'main', 'cli', 'index.js'));
    expect(run().status).toBe(0);
    expect(builds()).toBe(4);

    // A failed build is said in one line of ours below the build's own errors, and is tried again next time.
    writeFileSync(join(project, 'main', 'a.ts'), 'export const a = ;\n');
    const failed = run({ FAIL_BUILD: '1' });
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toMatch(/error TS1005/);
    expect(errorLines(failed.stderr).filter((l) => l.startsWith('drivesync:'))).toEqual(['drivesync: the build failed (its errors are above)']);
    expect(builds()).toBe(4);
    expect(run().status).toBe(0);
    expect(builds()).toBe(5);
  });

  it('npm run demo and npm start go through it; npm run build records what it built', () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.demo).toMatch(/^node scripts\/build-if-stale\.mjs && /);
    expect(scripts.start).toMatch(/^node scripts\/check-electron\.mjs start && node scripts\/build-if-stale\.mjs && electron \.$/);
    expect(scripts.dist).toMatch(/^node scripts\/check-electron\.mjs dist && node scripts\/build-if-stale\.mjs && electron-builder /);
    expect(scripts.build).toMatch(/ && node scripts\/build-if-stale\.mjs --record$/);
  });
});

describe('the Electron binary', () => {
  it('missing: npm start and npm run dist say so at once in one line, with how to get it, before building anything', () => {
    const empty = tempDir('electron');
    for (const [script, args] of [
      ['npm start', ['start']],
      ['npm run dist', ['run', 'dist']],
    ] as const) {
      const result = spawnSync('npm', args, {
        cwd: ROOT,
        env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: empty },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.status, result.stderr).toBe(1);
      const lines = errorLines(result.stderr);
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^drivesync: the Electron \\d+\\.\\d+\\.\\d+ binary is not in ELECTRON_OVERRIDE_DIST_PATH \\(${empty}\\): get it with \`npm run install-electron\` .*then run ${script} again$`),
      );
      expect(result.stderr).not.toMatch(/^\s+at |Error:/m);
      // Nothing after the check ran: no build, no electron.
      expect(result.stderr).not.toContain('not rebuilding');
      expect(result.stdout).not.toMatch(/vite|built in/);
    }
  });

  it('the check passes once the binary is where electron looks for it', () => {
    const dist = tempDir('electron');
    const check = () => spawnSync(process.execPath, [CHECK_ELECTRON, 'start'], { env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dist }, encoding: 'utf8' });
    expect(check().status).toBe(1);
    writeFileSync(join(dist, 'electron'), '#!/bin/sh\n', { mode: 0o755 });
    const found = check();
    expect(found.status, found.stderr).toBe(0);
    expect(found.stderr).toBe('');
  });
});
