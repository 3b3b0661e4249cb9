import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Files the tests move to the OS trash land in a trash of their own, never the machine user's.
process.env.XDG_DATA_HOME = mkdtempSync(join(tmpdir(), 'drivesync-test-xdg-'));
