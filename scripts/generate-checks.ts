/**
 * Writes main/api/checks.ts: the client's checks of the service's answers, compiled ahead of time from the wire
 * schemas in main/api/schemas.ts by TypeBox's own compiler (`TypeCompiler.Code`). A running engine then holds a few
 * plain functions instead of TypeBox and its compiler (some 200 modules, 6–10 MB of an idle engine's memory); TypeBox
 * is loaded only to say what is wrong with an answer that fails its check (main/api/mismatch.ts).
 *
 *   npm run checks     after changing a schema the client checks, or the list below
 *
 * test/api/checks.test.ts fails while the file is not what this writes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import * as Wire from '../main/api/schemas.js';

/** The answers the client checks: every schema a call of main/api passes to `Http.json`. */
export const CHECKED = [
  'AnyAuthResponse',
  'EntryListResponse',
  'EntryResponse',
  'FolderResponse',
  'EntriesResponse',
  'UploadResponse',
  'Status',
  'TagResponse',
  'UsersResponse',
  'LinkResponse',
  'SubscriberList',
  'SubscriberShowResponse',
  'SubscriberStoreResponse',
  'MessageResponse',
] as const satisfies readonly (keyof typeof Wire)[];

export const CHECKS_FILE = join(fileURLToPath(new URL('..', import.meta.url)), 'main', 'api', 'checks.ts');

/** The text of main/api/checks.ts for the schemas as they are now. */
export function checksSource(): string {
  const lines = [
    '// @ts-nocheck -- the functions below are generated JavaScript; each export is typed by its annotation.',
    '// Written by `npm run checks` (scripts/generate-checks.ts) from main/api/schemas.ts: do not edit by hand.',
    "import type { Static } from '@sinclair/typebox';",
    "import type * as Wire from './schemas.js';",
    "import type { WireCheck } from './wire-check.js';",
  ];
  for (const name of CHECKED) {
    const code = TypeCompiler.Code(Wire[name], { language: 'javascript' });
    const body = code
      .trim()
      .split('\n')
      .map((line) => `    ${line}`)
      .join('\n');
    lines.push('', `export const ${name}: WireCheck<Static<typeof Wire.${name}>> = {`, `  schema: '${name}',`, '  test: (() => {', body, '  })(),', '};');
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(CHECKS_FILE, checksSource());
  process.stdout.write(`wrote ${CHECKS_FILE}\n`);
}
