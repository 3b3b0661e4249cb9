/**
 * `drivesync file-manager install|remove`: emblems and "Copy link" in Nautilus, Nemo and Caja for the current user
 * (docs/file-manager.md).
 */
import type { Command } from 'commander';
import { installExtension, removeExtension } from '../../state/file-manager-install.js';
import { CliError } from '../errors.js';
import { note, print } from '../output.js';

export function registerFileManagerCommands(program: Command): void {
  const fm = program.command('file-manager').description('emblems and "Copy link" in Nautilus, Nemo and Caja: install or remove the extension');
  fm.command('install')
    .description('install the file manager extension for the current user (under $XDG_DATA_HOME)')
    .action(() => {
      let installed: ReturnType<typeof installExtension>;
      try {
        installed = installExtension();
      } catch (error) {
        throw new CliError(`the file manager extension could not be installed: ${(error as Error).message}`);
      }
      print(`installed the file manager extension for Nautilus, Nemo and Caja (${installed.files.length} files under ${installed.files[0]!.split('/').slice(0, -3).join('/')})`);
      if (installed.ready.length > 0) print(`ready in: ${installed.ready.join(', ')}; restart it to load the extension (nautilus -q, nemo -q or caja -q)`);
      for (const m of installed.missing) note(`${m.name} needs its Python binding first: sudo apt install ${m.apt}`);
      if (installed.ready.length === 0) note('no file manager with its Python binding was found');
    });
  fm.command('remove')
    .description('remove the file manager extension of the current user')
    .action(() => {
      const removed = removeExtension();
      print(removed.length === 0 ? 'the file manager extension was not installed' : `removed the file manager extension (${removed.length} files); restart the file manager to unload it`);
    });
}
