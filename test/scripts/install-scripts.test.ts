/**
 * npm 12 runs a dependency's install script only when `allowScripts` in package.json allows it (npm 11.16 on warns).
 * better-sqlite3 and keytar build from source in theirs, so a fresh `npm ci` without the entry leaves them unbuilt.
 * Every package the lockfile says has an install script is decided on here, allowed or denied, by name.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (name: string) => JSON.parse(readFileSync(join(ROOT, name), 'utf8'));

describe('install scripts', () => {
  it('every dependency with an install script is named in allowScripts, and the native ones are allowed', () => {
    const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
      .sort();
    const allow = (read('package.json') as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
    expect(withScripts.filter((name) => !(name in allow))).toEqual([]);
    for (const native of ['better-sqlite3', 'keytar', '@parcel/watcher']) expect(allow[native]).toBe(true);
  });
});
