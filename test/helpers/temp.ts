/**
 * The one way a test makes a temp folder: a fresh folder under the run's scratch folder (global-setup.ts points
 * TMPDIR there, so whatever a test leaves goes when the run ends).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A new empty folder, named `drivesync-NAME-…` so a leftover says whose it is. */
export const tempDir = (name: string): string => mkdtempSync(join(tmpdir(), `drivesync-${name}-`));
