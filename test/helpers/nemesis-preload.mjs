/**
 * Loaded with `node --import` into a `drivesync sync` process of the nemesis test, to inject two faults a test cannot
 * make happen for real on demand:
 * - a clock jump: the wall clock (Date) is moved by the milliseconds written in DRIVESYNC_TEST_CLOCK_FILE, as a clock
 *   set by hand or by NTP is (timers run on the monotonic clock, as they do then);
 * - a full disk: while DRIVESYNC_TEST_FULL_FILE exists, anything written or made under DRIVESYNC_TEST_FULL_ROOT
 *   fails with ENOSPC, as on a disk with no space left (reads, renames, deletions and making a folder that is
 *   already there still work).
 * The product's own code runs unchanged against both.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { resolve } from 'node:path';

const clockFile = process.env.DRIVESYNC_TEST_CLOCK_FILE;
const fullFile = process.env.DRIVESYNC_TEST_FULL_FILE;
const fullRoot = process.env.DRIVESYNC_TEST_FULL_ROOT ? resolve(process.env.DRIVESYNC_TEST_FULL_ROOT) : undefined;

if (clockFile) {
  const RealDate = Date;
  let offset = 0;
  const read = () => {
    try {
      offset = Number(fs.readFileSync(clockFile, 'utf8')) || 0;
    } catch {
      offset = 0;
    }
  };
  read();
  setInterval(read, 100).unref();
  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = ShiftedDate;
}

if (fullFile && fullRoot) {
  const full = (path) => {
    if (typeof path !== 'string' && !(path instanceof URL) && !Buffer.isBuffer(path)) return false;
    const abs = resolve(path instanceof URL ? path.pathname : String(path));
    return (abs === fullRoot || abs.startsWith(`${fullRoot}/`)) && fs.existsSync(fullFile);
  };
  const writes = (flags) => typeof flags === 'string' && /[wa+]/.test(flags);
  const enospc = (syscall, path) => Object.assign(new Error(`ENOSPC: no space left on device, ${syscall} '${path}'`), { code: 'ENOSPC', errno: -28, syscall, path: String(path) });
  const { promises } = fs;
  const wrapAsync = (target, name, isWrite) => {
    const original = target[name];
    target[name] = function (path, ...rest) {
      if (full(path) && isWrite(rest, path)) return Promise.reject(enospc(name, path));
      return original.call(this, path, ...rest);
    };
  };
  const wrapSync = (name, isWrite) => {
    const original = fs[name];
    fs[name] = function (path, ...rest) {
      if (full(path) && isWrite(rest, path)) throw enospc(name, path);
      return original.call(this, path, ...rest);
    };
  };
  const wrapCallback = (name, isWrite) => {
    const original = fs[name];
    fs[name] = function (path, ...rest) {
      if (full(path) && isWrite(rest, path)) {
        const done = rest.findLast((arg) => typeof arg === 'function');
        process.nextTick(() => done(enospc(name, path)));
        return undefined;
      }
      return original.call(this, path, ...rest);
    };
  };
  const always = () => true;
  const openWrites = (rest) => writes(rest[0]);
  // A folder that is already there needs no space: mkdir -p of it succeeds on a full disk too.
  const makesFolder = (rest, path) => !fs.existsSync(path);
  wrapAsync(promises, 'writeFile', always);
  wrapAsync(promises, 'appendFile', always);
  wrapAsync(promises, 'mkdir', makesFolder);
  wrapAsync(promises, 'copyFile', always);
  wrapAsync(promises, 'open', openWrites);
  wrapSync('writeFileSync', always);
  wrapSync('appendFileSync', always);
  wrapSync('mkdirSync', makesFolder);
  wrapSync('openSync', openWrites);
  wrapCallback('open', openWrites);
  wrapCallback('mkdir', makesFolder);
  wrapCallback('writeFile', always);
  syncBuiltinESMExports();
}
