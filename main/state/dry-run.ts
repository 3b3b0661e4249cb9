/**
 * A dry run of a folder as its account syncs it (main/sync/engine/dry-run.ts): on a copy of the folder's mirror,
 * with the folder's selection and the place what is shared with the account arrives.
 */
import type { DriveClient } from '../api/client.js';
import { dryRun, type DryRunReport } from '../sync/engine/dry-run.js';
import type { Config } from './config.js';
import type { StatePaths } from './paths.js';
import { rootOfAccount } from './roots.js';
import { selectionOf } from './selection.js';
import { sharedFolderOf } from './shared-folder.js';

export type { DryRunItem, DryRunKind, DryRunReport } from '../sync/engine/dry-run.js';

export interface DryRunFolder {
  paths: StatePaths;
  config: Config;
  server: string;
  email: string | undefined;
  client: DriveClient;
}

export function dryRunFolder(root: string, account: DryRunFolder): Promise<DryRunReport> {
  const place = sharedFolderOf(account.config, root);
  return dryRun({
    root,
    client: account.client,
    mirrorPath: rootOfAccount(account.paths, root, account.server, account.email).mirror,
    selection: () => selectionOf(account.config, root),
    sharedPlace: () => (place === null ? null : { folder: place, me: account.email }),
  });
}
