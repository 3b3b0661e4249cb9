/** A file's or folder's state in the words and marks of the file manager's emblems (docs/file-manager.md). */
import type { ItemState } from '../../main/contract/index.js';
import { Icon } from './icons.js';

export const ITEM_STATE_WORDS: Record<ItemState, string> = {
  synced: 'Synced',
  syncing: 'Syncing',
  error: 'Not synced',
  conflict: 'Conflict',
  ignored: 'Left out',
  excluded: 'Not on this computer',
  'online-only': 'Online only',
  none: 'Not in a synced folder',
};

export const itemStateIcon = (state: ItemState) => (state === 'error' ? 'warn' : state === 'conflict' ? 'both' : 'check');

/** The mark beside an entry: its icon, and its word for screen readers and on hover. */
export function ItemStateMark({ state }: { state: ItemState }) {
  return (
    <span class={`item-state state-${state}`} title={ITEM_STATE_WORDS[state]} data-state={state}>
      <Icon name={itemStateIcon(state)} />
      <span class="sr-only">{ITEM_STATE_WORDS[state]}</span>
    </span>
  );
}
