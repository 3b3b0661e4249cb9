import { folderName, parentOf } from './format.js';
import { PathText } from './path-text.js';

/** Where an item is: its folder inside the synced folder, the synced folder named by its last part. */
export function Where({ root, path }: { root: string; path: string }) {
  const inside = parentOf(path);
  return (
    <span class="muted small">
      in <PathText path={inside ? `${folderName(root)}/${inside}` : folderName(root)} />
    </span>
  );
}
