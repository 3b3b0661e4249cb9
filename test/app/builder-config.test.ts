/** electron-builder.yml against electron-builder's own JSON schema, and what the packages must hold. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO } from './fake-electron.js';

const schema = JSON.parse(readFileSync(join(REPO, 'node_modules', 'app-builder-lib', 'scheme.json'), 'utf8')) as object;
const config = parse(readFileSync(join(REPO, 'electron-builder.yml'), 'utf8')) as Record<string, any>;
const validate = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true }).compile(schema);

describe('electron-builder.yml', () => {
  it('is valid under electron-builder scheme.json', () => {
    const ok = validate(config);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('would be refused if it were wrong (the check can fail)', () => {
    expect(validate({ ...config, linux: { ...config.linux, target: 42 } })).toBe(false);
    expect(validate({ ...config, noSuchOption: true })).toBe(false);
    expect(validate({ ...config, deb: { ...config.deb, depends: 'libsecret-1-0' } })).toBe(false);
  });

  it('builds an AppImage and a deb that depends on libsecret, with the native modules outside the asar', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.deb.depends).toContain('libsecret-1-0');
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['node_modules/better-sqlite3/**', 'node_modules/keytar/**']));
    expect(config.files).toEqual(expect.arrayContaining(['dist/main/**/*.js', 'dist/preload/**', 'dist/renderer/**', 'main/app/icons/**']));
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    expect(pkg.main).toBe('dist/main/app/main.js');
    expect(pkg.scripts.start).toMatch(/npm run build && electron \./);
    // Electron is a devDependency pinned to a release whose package has no install script (nothing downloads).
    expect(pkg.dependencies.electron).toBeUndefined();
    const electronPkg = JSON.parse(readFileSync(join(REPO, 'node_modules', 'electron', 'package.json'), 'utf8'));
    expect(pkg.devDependencies.electron).toBe(electronPkg.version);
    expect(electronPkg.scripts?.postinstall).toBeUndefined();
    expect(electronPkg.scripts?.install).toBeUndefined();
    expect(pkg.devDependencies.playwright).toBeUndefined();
  });
});
