/** electron-builder.yml against electron-builder's own JSON schema, what the packages must hold, per platform. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { startedAtLogin } from '../../main/app/autostart.js';
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
    expect(validate({ ...config, nsis: { ...config.nsis, oneClick: 'yes' } })).toBe(false);
    expect(validate({ ...config, mac: { ...config.mac, category: 7 } })).toBe(false);
  });

  it('puts the file manager extension system-wide in the deb, and in the app for `file-manager install`', () => {
    const mapped = (config.deb.fpm as string[]).map((arg) => arg.split('='));
    expect(mapped.map(([, to]) => to)).toEqual([
      '/usr/share/nautilus-python/extensions/drivesync_file_manager.py',
      '/usr/share/nemo-python/extensions/drivesync_file_manager.py',
      '/usr/share/caja-python/extensions/drivesync_file_manager.py',
      '/usr/share/icons/hicolor/scalable/emblems/',
    ]);
    for (const [from] of mapped) expect(existsSync(join(REPO, from!)), from).toBe(true);
    expect(config.extraResources).toEqual([{ from: 'extensions/file-manager', to: 'file-manager' }]);
    expect(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).files).toContain('extensions');
  });

  it('builds an AppImage and a deb that depends on libsecret, with the native modules outside the asar', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.deb.depends).toContain('libsecret-1-0');
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['node_modules/better-sqlite3/**', 'node_modules/keytar/**']));
    expect(config.files).toEqual(expect.arrayContaining(['dist/main/**/*.js', 'dist/preload/**', 'dist/renderer/**', 'main/app/icons/**']));
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    expect(pkg.main).toBe('dist/main/app/main.js');
    // npm start builds what changed, then starts Electron on the project.
    expect(pkg.scripts.start).toMatch(/build-if-stale\.mjs && electron \.$/);
    // Electron is a devDependency pinned to a release whose package has no install script (nothing downloads).
    expect(pkg.dependencies.electron).toBeUndefined();
    const electronPkg = JSON.parse(readFileSync(join(REPO, 'node_modules', 'electron', 'package.json'), 'utf8'));
    expect(pkg.devDependencies.electron).toBe(electronPkg.version);
    expect(electronPkg.scripts?.postinstall).toBeUndefined();
    expect(electronPkg.scripts?.install).toBeUndefined();
    expect(pkg.devDependencies.playwright).toBeUndefined();
  });
});

describe('the packages for Windows and macOS', () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8'));

  it('builds a per-user nsis installer and a dmg, with the app icon', () => {
    expect(config.win.target).toEqual(['nsis']);
    expect(config.nsis).toMatchObject({ oneClick: true, perMachine: false });
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.mac.category).toMatch(/^public\.app-category\./);
    for (const icon of [config.win.icon, config.mac.icon]) {
      expect(icon).toBe('main/app/icons/app.png');
      // electron-builder makes .ico and .icns from a PNG of at least 512 × 512.
      const png = readFileSync(join(REPO, icon));
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
    }
  });

  it('installs the watcher prebuilt for each system from the lock file, and keeps native parts outside the asar', () => {
    expect(pkg.dependencies['@parcel/watcher']).toBeDefined();
    const watcher = lock.packages['node_modules/@parcel/watcher'];
    for (const platform of ['win32-x64', 'darwin-x64', 'darwin-arm64', 'linux-x64-glibc']) {
      const name = `@parcel/watcher-${platform}`;
      expect(watcher.optionalDependencies[name]).toBe(watcher.version);
      // Locked with its checksum, so `npm ci` on that system fetches exactly this build from the registry.
      expect(lock.packages[`node_modules/${name}`]).toMatchObject({ version: watcher.version, optional: true, integrity: expect.stringMatching(/^sha512-/) });
    }
    // The trash package runs a program of its own on macOS and Windows: it must be a real file in the package.
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['node_modules/@parcel/**', 'node_modules/trash/lib/**', '**/*.node']));
    expect(existsSync(join(REPO, 'node_modules', 'trash', 'lib', 'macos-trash'))).toBe(true);
    expect(existsSync(join(REPO, 'node_modules', 'trash', 'lib', 'windows-trash.exe'))).toBe(true);
  });

  it('opens to the tray when started at login: --hidden on Linux and Windows, the login item on macOS', () => {
    const never = () => false;
    const always = () => true;
    expect(startedAtLogin(['drivesync', '--hidden'], 'linux', never)).toBe(true);
    expect(startedAtLogin(['drivesync.exe', '--hidden'], 'win32', never)).toBe(true);
    expect(startedAtLogin(['drivesync'], 'linux', always)).toBe(false);
    expect(startedAtLogin(['drivesync.exe'], 'win32', always)).toBe(false);
    expect(startedAtLogin(['drivesync'], 'darwin', always)).toBe(true);
    expect(startedAtLogin(['drivesync'], 'darwin', never)).toBe(false);
  });
});
