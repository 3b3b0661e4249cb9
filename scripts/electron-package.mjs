// What the launch scripts share: one line on stderr and exit 1 for a failure, and where the electron package is.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const fail = (line) => {
  process.stderr.write(`drivesync: ${line}\n`);
  process.exit(1);
};

/** The installed electron package's folder and version; `missing` is said (and the script ends) when it is not installed. */
export function electronPackage(missing) {
  let packageDir;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    fail(missing);
  }
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  return { packageDir, version };
}
