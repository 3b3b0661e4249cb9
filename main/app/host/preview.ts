/**
 * What a first sync of a folder would do, asked before the folder is added (Settings → Add a folder…): the engine's
 * dry run (main/state/dry-run.ts), which changes nothing, cut to what a person weighs before saying yes — what goes
 * up, what comes down, what is compared.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { FirstSyncPreview } from '../../contract/index.js';
import { dryRunFolder } from '../../state/dry-run.js';
import { STATE_DIR_NAME } from '../../state/folder.js';
import type { HostContext } from './context.js';
import { HostError } from './failures.js';

/** Items the window lists; the counts cover all of them. */
const LISTED = 200;

const UP = new Set(['upload', 'upload-new-version', 'create-folder-on-drive']);
const DOWN = new Set(['download', 'create-folder-here']);

export async function previewFirstSync(host: HostContext, root: string): Promise<FirstSyncPreview> {
  const client = host.requireClient();
  const account = host.account!;
  if (!isAbsolute(root) || !existsSync(root) || !statSync(root).isDirectory()) throw new HostError('invalid', `${root} is not a folder.`);
  const none: FirstSyncPreview = { root, empty: true, up: { count: 0, bytes: 0 }, down: { count: 0, bytes: 0 }, compared: 0, items: [] };
  const here = readdirSync(root).filter((name) => name !== STATE_DIR_NAME);
  const report = await dryRunFolder(root, { paths: host.paths, config: host.config, server: account.server, email: account.email, client });
  const preview = { ...none, empty: here.length === 0 };
  for (const item of report.items) {
    const side = UP.has(item.kind) ? preview.up : DOWN.has(item.kind) ? preview.down : null;
    if (side) {
      side.count += item.count;
      side.bytes += item.bytes;
    } else if (item.kind === 'compare' || item.kind === 'conflict') preview.compared += 1;
  }
  preview.items = report.items.slice(0, LISTED).map((item) => ({ kind: item.kind, path: item.path, bytes: item.bytes }));
  return preview;
}
