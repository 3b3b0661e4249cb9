// Builds dist/ only when a source changed since the last build: `npm run demo` and `npm start` start in a few
// seconds on an unchanged tree instead of rebuilding it (a full build takes half a minute and more).
//   node scripts/build-if-stale.mjs            build unless dist/ is up to date
//   node scripts/build-if-stale.mjs --record   note that dist/ was just built from the tree as it is (end of `npm run build`)
// DRIVESYNC_PROJECT names another project folder (the tests use a small one).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.env.DRIVESYNC_PROJECT || join(dirname(fileURLToPath(import.meta.url)), '..');
/** What the build reads: these folders, and these files at the top. */
const SOURCE_DIRS = ['main', 'server', 'preload', 'renderer', 'scripts'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'vite.renderer.config.ts'];
const STAMP = join(root, 'dist', '.build-stamp');
/** A file the build makes: without it there is nothing to run, whatever the stamp says. */
const OUTPUT = join(root, 'dist', 'main', 'cli', 'index.js');

/** Every source file's path, size and modification time, as one digest. */
function fingerprint() {
  const hash = createHash('sha256');
  const visit = (path) => {
    let info;
    try {
      info = statSync(path);
    } catch {
      return;
    }
    if (info.isDirectory()) {
      for (const name of readdirSync(path).sort()) if (name !== 'node_modules') visit(join(path, name));
    } else if (info.isFile()) {
      hash.update(`${relative(root, path)}\0${info.size}\0${info.mtimeMs}\n`);
    }
  };
  for (const dir of SOURCE_DIRS) visit(join(root, dir));
  for (const file of SOURCE_FILES) visit(join(root, file));
  return hash.digest('hex');
}

const recorded = () => {
  try {
    return readFileSync(STAMP, 'utf8').trim();
  } catch {
    return null;
  }
};

function record(digest) {
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, `${digest}\n`);
}

if (process.argv.includes('--record')) {
  record(fingerprint());
} else {
  // Taken before the build: a file saved while it runs makes the next run build again.
  const before = fingerprint();
  if (existsSync(OUTPUT) && recorded() === before) {
    process.stderr.write('dist/ is up to date with the sources; not rebuilding\n');
  } else {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const build = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) {
      process.stderr.write('drivesync: the build failed (its errors are above)\n');
      process.exit(build.status ?? 1);
    }
    record(before);
  }
}
