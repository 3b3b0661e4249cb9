/** The names the service refuses, and what the user is told about them. */

/** Deployed versions refuse folder names and renames outside 3 to 200 characters. */
export const REMOTE_NAME = { min: 3, max: 200 } as const;

/** Names a folder can be created with, and any entry renamed to (uploads keep any name). */
export function validRemoteName(name: string): boolean {
  const length = [...name].length;
  return length >= REMOTE_NAME.min && length <= REMOTE_NAME.max && name.trim() !== '';
}

export const refusedName = (name: string) =>
  `the drive accepts folder names and renames of ${REMOTE_NAME.min} to ${REMOTE_NAME.max} characters, so "${name}" cannot be made there; rename it`;

export const emptyRefused = (name: string) =>
  `an empty folder named "${name}" cannot be made on the drive (folder names need ${REMOTE_NAME.min} to ${REMOTE_NAME.max} characters); it is synced once it holds a file, or under a longer name`;

export const keptName = (name: string, kept: string) =>
  `the drive does not accept "${name}" as a name (${REMOTE_NAME.min} to ${REMOTE_NAME.max} characters); it is kept there as "${kept}"`;

export const movedInRefused = (name: string) =>
  `the drive accepts folder names of ${REMOTE_NAME.min} to ${REMOTE_NAME.max} characters, so "${name}" cannot be made there, and what was moved into it stays where it was on the drive; rename the folder`;
