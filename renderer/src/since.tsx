import type { ShownState } from './folder-state.js';
import { formatSince } from './format.js';

/** What follows an offline state's word: since when the drive could not be reached (“Offline since 14:02”). */
export function Since({ shown }: { shown: ShownState }) {
  return shown.since ? (
    <span class="since" data-testid="offline-since">
      {' '}
      since <time dateTime={shown.since}>{formatSince(shown.since)}</time>
    </span>
  ) : null;
}
