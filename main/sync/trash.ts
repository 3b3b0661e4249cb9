/** The OS trash (freedesktop Trash on Linux, the Recycle Bin, the macOS Trash) through the `trash` package. */
export async function moveToOsTrash(absolutePath: string): Promise<void> {
  const { default: trash } = await import('trash');
  // Names are literal: a file called `*.txt` must not be read as a pattern.
  await trash(absolutePath, { glob: false });
}
