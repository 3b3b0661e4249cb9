import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer } from './server.js';

/** Rewrites the stored bytes of the drive's entry named `name` behind every client's back (a fault of the server's disk). */
export function plant(server: TestServer, name: string, content: string): void {
  const row = server.context.db.prepare('SELECT file_name FROM entries WHERE name = ? AND deleted_at IS NULL').get(name) as { file_name: string };
  writeFileSync(join(server.context.blobDir, row.file_name), content);
}
