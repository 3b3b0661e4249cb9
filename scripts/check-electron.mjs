// Says at once, in one line, when the Electron binary is not there: `npm start` and `npm run dist` would otherwise
// build for a minute, then fail after a long download attempt with a stack trace. The electron package fetches its
// binary only when asked (its `install-electron` command, which `npm run install-electron` runs).
//   node scripts/check-electron.mjs start|dist
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { electronPackage, fail } from './electron-package.mjs';

const script = process.argv[2] === 'dist' ? 'npm run dist' : 'npm start';
const { packageDir, version } = electronPackage(`${script} needs the electron package, which is not installed: run npm ci`);
// The package records where its binary is (path.txt) once the binary is in place; the override is electron's own.
const pathFile = join(packageDir, 'path.txt');
const relativeBinary = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
const binary = override ? join(override, relativeBinary ?? 'electron') : relativeBinary ? join(packageDir, 'dist', relativeBinary) : null;
if (!binary || !existsSync(binary)) {
  const where = override ? `not in ELECTRON_OVERRIDE_DIST_PATH (${override})` : 'not installed';
  fail(`the Electron ${version} binary is ${where}: get it with \`npm run install-electron\` (it downloads about 100 MB from GitHub), then run ${script} again`);
}
