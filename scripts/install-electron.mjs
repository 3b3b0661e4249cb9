// `npm run install-electron`: puts the Electron binary where the electron package looks for it (node_modules/electron/dist),
// which `npm start` needs. It runs the electron package's own installer (its `install-electron` command, install.js),
// which downloads the release for this system from GitHub (about 100 MB; ELECTRON_MIRROR and the other variables of
// @electron/get apply). The installer reports a failure as a stack trace; this says it in one line and exits 1.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { electronPackage, fail } from './electron-package.mjs';

const { packageDir, version } = electronPackage('the electron package is not installed: run npm ci first');
const installer = join(packageDir, 'install.js');
if (!existsSync(installer)) fail(`the electron ${version} package has no installer (install.js) to run`);

const mirror = process.env.ELECTRON_MIRROR || process.env.npm_config_electron_mirror;
let from = 'github.com';
try {
  if (mirror) from = new URL(mirror).host;
} catch {
  from = mirror;
}

// The installer's output is held back: on failure it is a stack trace, on success nothing worth reading. A download
// still going after a few seconds is said, so a slow one is not taken for a hang.
const child = spawn(process.execPath, [installer], { stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
const slow = setTimeout(() => {
  process.stdout.write(`downloading the Electron ${version} binary (about 100 MB) from ${from}…\n`);
}, 3000);

child.on('close', (code, signal) => {
  clearTimeout(slow);
  if (code === 0) {
    process.stdout.write(`the Electron ${version} binary is in ${join(packageDir, 'dist')}; npm start runs the app\n`);
    return;
  }
  // The first line of a stack trace is `Name: message`; the message is the part a person can act on.
  const first = output.split('\n').map((l) => l.trim()).find((l) => l !== '' && !l.startsWith('at ')) ?? '';
  const reason = first.replace(/^(?:[A-Za-z]*Error|Error)(?: \[[A-Z_]+\])?: /, '') || (signal ? `stopped by ${signal}` : `exit code ${code}`);
  fail(`could not download the Electron ${version} binary from ${from} (no network?): ${reason}`);
});
