import type { FolderView } from '../../../main/contract/index.js';
import { baseName, folderName } from '../format.js';
import { Where } from '../where.js';

/** The id of the section's heading: the status view's count of what is left out points there. */
export const LEFT_OUT_HEADING = 'left-out-title';

function LeftOutList({ folder }: { folder: FolderView }) {
  if (folder.leftOut.length === 0) return <p class="muted">Nothing is left out.</p>;
  const unlisted = folder.skipped - folder.leftOut.length;
  return (
    <>
      <ul class="problem-list left-out-list" data-testid="left-out-list" aria-label={`Left out in ${folderName(folder.root)}`}>
        {folder.leftOut.map((item) => (
          <li key={item.path}>
            <p class="problem-text">
              <strong>{baseName(item.path)}</strong> <Where root={folder.root} path={item.path} />
            </p>
            <p class="problem-message">{item.reason}</p>
          </li>
        ))}
      </ul>
      {unlisted > 0 ? <p class="muted small">And {unlisted} more, not listed here.</p> : null}
    </>
  );
}

/**
 * What the last pass of each folder left out on purpose — symbolic links, ignored names, empty folders the drive
 * cannot hold — each with why: where a person looks when something is not on the drive and no error says why.
 */
export function LeftOutSection({ folders }: { folders: FolderView[] }) {
  const several = folders.length > 1;
  const nothing = folders.every((f) => f.leftOut.length === 0);
  return (
    <section aria-labelledby={LEFT_OUT_HEADING} class="panel" data-testid="left-out">
      <h3 id={LEFT_OUT_HEADING} tabIndex={-1}>
        Left out by design
      </h3>
      {nothing ? (
        <p class="muted">Nothing is left out: no symbolic links, ignored names or empty folders the drive cannot hold.</p>
      ) : (
        <>
          <p class="muted small">drivesync does not sync these on purpose; nothing failed.</p>
          {several
            ? folders.map((folder, i) => (
                <section key={folder.root} aria-labelledby={`left-out-folder-${i}`} class="left-out-folder">
                  <h4 id={`left-out-folder-${i}`}>{folderName(folder.root)}</h4>
                  <LeftOutList folder={folder} />
                </section>
              ))
            : folders.map((folder) => <LeftOutList key={folder.root} folder={folder} />)}
        </>
      )}
    </section>
  );
}
