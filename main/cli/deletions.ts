/**
 * The mass-delete guard's question in words, for `sync` (asked on the terminal) and `status` (a question waiting
 * for an answer): how many items and bytes, where they would go, why, and the first items by path.
 */
import type { DeletionQuestion } from '../state/folder.js';
import { humanBytes, safe } from './output.js';

const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;

/** The first line `status` shows of a question waiting for an answer. */
const waitingLine = (question: DeletionQuestion) =>
  `waiting for your answer: ${question.count} of ${question.synced} synced items would be deleted (${humanBytes(question.bytes)}):`;

/** The question's first line, as `sync` asks it. */
export const askedLine = (question: DeletionQuestion) =>
  `This pass would delete ${question.count} of ${question.synced} synced items (${humanBytes(question.bytes)}):`;

/** What would be deleted, where and why, naming the first `shown` items of each side, under `head`. */
export function describeDeletions(question: DeletionQuestion, shown = 10, head = waitingLine(question)): string[] {
  const lines = [head];
  for (const group of question.groups) {
    const where = group.where === 'drive' ? "on the drive (to the drive's trash)" : 'in this folder (to the OS trash)';
    lines.push(`  ${items(group.count)} ${where}: ${group.why}`);
    for (const item of group.items.slice(0, shown)) {
      lines.push(`    ${safe(item.path)}${item.type === 'folder' ? '/' : ''}`);
    }
    const more = group.items.length - shown;
    if (more > 0) lines.push(`    and ${more} more (drivesync status --json lists them all)`);
  }
  if (question.excluded) {
    const { items: n, bytes } = question.excluded;
    lines.push(`  and ${items(n)} (${humanBytes(bytes)}) inside folders this computer leaves out (drivesync excluded): not here, but they go to the drive's trash too`);
  }
  return lines;
}

/** What a sync with no terminal says of a question: the deletions wait, the rest syncs on, and how to answer. */
export const waitsForAnswer = (dir: string) =>
  `nothing is deleted until you answer; everything else goes on syncing. drivesync deletions --delete ${dir} deletes them, --keep keeps them`;

/** The three answers, as asked on the terminal. */
export const ANSWERS =
  'Delete them? [y] yes, delete them  [n] no, keep them (put back where they were deleted)  [L] later (nothing is deleted until you answer)';
