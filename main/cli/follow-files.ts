/**
 * `--follow` for the commands that print a file as it grows (`activity --follow`, `service logs -f`): each whole line
 * written to any of the files from now on, until Ctrl-C or SIGTERM. A file that is cut back (a log kept to its last
 * lines) is followed from its new end.
 */
import { closeSync, openSync, readSync, statSync, watch } from 'node:fs';
import { dirname } from 'node:path';

const sizeOf = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

export async function followFiles(files: readonly string[], onLine: (line: string) => void): Promise<void> {
  const offsets = new Map(files.map((file) => [file, sizeOf(file)]));
  const readNew = () => {
    for (const file of files) {
      const size = sizeOf(file);
      const from = Math.min(offsets.get(file) ?? 0, size);
      if (size === from) {
        offsets.set(file, size);
        continue;
      }
      const buffer = Buffer.alloc(size - from);
      const fd = openSync(file, 'r');
      try {
        readSync(fd, buffer, 0, buffer.length, from);
      } finally {
        closeSync(fd);
      }
      // Whole lines only; a line being written is read with the next change.
      const whole = buffer.lastIndexOf(0x0a) + 1;
      offsets.set(file, from + whole);
      for (const line of buffer.subarray(0, whole).toString('utf8').split('\n')) if (line !== '') onLine(line);
    }
  };
  await new Promise<void>((resolve) => {
    let watcher: ReturnType<typeof watch> | null = null;
    try {
      watcher = watch(dirname(files[0] ?? '.'), { persistent: true }, readNew);
      watcher.on('error', () => undefined);
    } catch {
      // The folder is not there yet: the timer looks instead.
    }
    const timer = setInterval(readNew, 1000);
    const stop = () => {
      clearInterval(timer);
      watcher?.close();
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
