/** The engine's technical lines, as the window says them: what went wrong, where, and what to do. */
import { describe, expect, it } from 'vitest';
import { apiErrorOfLine, NO_SPACE, plainLeftOut, plainProblem, serverPlace } from '../../main/app/host/plain-words.js';
import { LEFT_OUT_PLACE } from '../../main/sync/plan/selective.js';

const where = { root: '/home/me/Drive', server: 'https://drive.example.com' };

describe('plain words for what the engine reports', () => {
  it.each([
    ['GET /drive/file-entries: connection refused', 'Cannot reach the server https://drive.example.com: connection refused. Check your internet connection; drivesync tries again on its own.'],
    ['GET /drive/file-entries: host not found', 'Cannot reach the server https://drive.example.com: host not found. Check your internet connection; drivesync tries again on its own.'],
    ['POST /uploads: timed out (request phase)', 'The server https://drive.example.com did not answer in time. drivesync tries again on its own.'],
    ['GET /drive/file-entries: the server did not answer within 60 s', 'The server https://drive.example.com did not answer within 60 s. drivesync tries again on its own.'],
    ['GET /file-entries/{entryId}: no data moved for 60 s', 'The transfer stalled: nothing moved to or from the server https://drive.example.com for 60 s. drivesync tries again on its own.'],
    ['GET /drive/file-entries: server error 503', 'The server failed (server error 503). drivesync tries again on its own.'],
    ['GET /drive/file-entries: not signed in, or the session expired', 'Not signed in, or the session has expired: sign out and sign in again.'],
    ['POST /file-entries/star: too many requests', 'The server is busy (too many requests). drivesync waits and tries again on its own.'],
    ['PUT /file-entries/{entryId}: The name is taken.', 'Refused by the server: The name is taken. Rename or move the item; it is tried again at the next sync.'],
    // An https address on a plain-http server, in OpenSSL's words as node passes them on.
    [
      'GET /drive/file-entries: write EPROTO 805C058BC07F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:',
      'The server https://drive.example.com speaks plain http, not https. Sign out and sign in again with its http:// address.',
    ],
  ])('%s', (line, words) => {
    expect(plainProblem(line, where)).toBe(words);
  });

  it('asks whether a server on this computer or its network is running, instead of sending the user to check the internet', () => {
    const at = (server: string) => plainProblem('GET /drive/file-entries: connection refused', { root: '/home/me/Drive', server });
    expect(at('http://127.0.0.1:8080')).toBe('Cannot reach the drive server at 127.0.0.1:8080 — is it running? drivesync tries again on its own.');
    expect(at('http://localhost:8080')).toBe('Cannot reach the drive server at localhost:8080 — is it running? drivesync tries again on its own.');
    expect(at('http://[::1]:8080')).toBe('Cannot reach the drive server at [::1]:8080 — is it running? drivesync tries again on its own.');
    expect(at('https://192.168.1.20')).toBe('Cannot reach the drive server at 192.168.1.20 — is it running, and is this computer on its network? drivesync tries again on its own.');
    expect(at('http://nas:8080')).toMatch(/^Cannot reach the drive server at nas:8080 — is it running, and is this computer on its network\?/);
    expect(at('https://drive.example.com')).toMatch(/Check your internet connection/);
    for (const server of ['http://127.0.0.1:8080', 'http://10.0.0.5', 'http://nas.local']) expect(at(server)).not.toMatch(/internet/);
    expect(['http://127.0.0.1', 'http://10.1.2.3', 'http://172.20.0.1', 'http://172.32.0.1', 'http://[fd00::1]', 'https://files.example.org'].map(serverPlace)).toEqual([
      'this-computer',
      'local-network',
      'local-network',
      'internet',
      'local-network',
      'internet',
    ]);
  });

  it('names the folder a refused folder name is in, and says to rename it', () => {
    expect(plainProblem('the drive accepts folder names and renames of 3 to 200 characters, so "ab (2)" cannot be made there; rename it', where)).toBe(
      'The drive accepts folder names of 3 to 200 characters only, so “ab (2)” in Drive is not synced. Rename it and it syncs.',
    );
    expect(
      plainProblem('an empty folder named "db" cannot be made on the drive (folder names need 3 to 200 characters); it is synced once it holds a file, or under a longer name', where),
    ).toBe('The drive cannot hold an empty folder named “db” (folder names need 3 to 200 characters), so it is left out in Drive. It syncs once it holds a file, or under a longer name.');
    expect(
      plainProblem('the drive accepts folder names of 3 to 200 characters, so "ab" cannot be made there, and what was moved into it stays where it was on the drive; rename the folder', where),
    ).toBe('The drive accepts folder names of 3 to 200 characters only, so “ab” in Drive cannot be made there, and what you moved into it stays where it was on the drive. Rename the folder and it syncs.');
    expect(plainProblem('the drive does not accept "ab" as a name (3 to 200 characters); it is kept there as "abc.txt"', where)).toBe(
      'The drive does not accept “ab” as a name (3 to 200 characters), so on the drive it keeps the name “abc.txt”.',
    );
    expect(plainProblem('cannot be read: its name is not valid UTF-8 (a name from an older system), so it is not synced; rename it to sync it', where)).toMatch(/not valid UTF-8.*Rename it in Drive/);
  });

  it('says what to do about the local disk', () => {
    expect(plainProblem("EACCES: permission denied, open '/home/me/Drive/x'", where)).toMatch(/^drivesync may not read or change this item in Drive\. Check its permissions/);
    expect(plainProblem('ENOSPC: no space left on device', where)).toBe('The disk is full. Free some space; drivesync tries again on its own.');
    expect(plainProblem('symbolic links are not synced', where)).toMatch(/^This is a symbolic link/);
  });

  it('leaves a line it does not know as a sentence of its own, and never names an endpoint', () => {
    expect(plainProblem('waiting for consent to delete 40 items', where)).toBe('Waiting for consent to delete 40 items.');
    for (const line of ['GET /drive/file-entries: connection refused', 'DELETE /file-entries: not allowed']) expect(plainProblem(line, where)).not.toMatch(/GET|DELETE|file-entries/);
  });

  it('says why an item was left out by design in plain words where it has some, and in the engine’s line otherwise', () => {
    expect(plainLeftOut('left out by the ignore rules (temp files and .syncignore)', where)).toBe(
      'Ignored: temporary and editor files, and names your ignore rules list (Settings), are not synced.',
    );
    expect(plainLeftOut('symbolic links are not synced', where)).toBe(
      'This is a symbolic link: drivesync does not follow links. Move the real file or folder into the synced folder instead.',
    );
    // A line it has no words for is kept as the engine wrote it: not made into a failure of the server.
    expect(plainLeftOut('left out for a reason the window does not know', where)).toBe('left out for a reason the window does not know');
    expect(plainLeftOut('GET /x: connection refused', where)).toBe('GET /x: connection refused');
  });

  it('says what selective sync reports in the window’s words, pointing to Choose folders… instead of the commands', () => {
    const space = 'not enough free space: 3.2 GB to download, 1.1 GB free on this disk; free some space, or leave folders out (drivesync exclude)';
    expect(NO_SPACE.test(space)).toBe(true);
    expect(plainProblem(space, where)).toBe(
      'Not enough free space: 3.2 GB to download, 1.1 GB free on this disk, so nothing more is downloaded. Free some space and sync again, or leave folders out (Choose folders…).',
    );
    // The engine's own line for a local folder at the place of a folder left out.
    expect(plainLeftOut(LEFT_OUT_PLACE('Photos'), where)).toBe(
      'The drive has a folder “Photos” here that this computer leaves out, so this folder, at its place, is not synced. Include the drive’s folder with Choose folders… in Settings, or rename this one.',
    );
    expect(plainLeftOut('excluded: leaves this computer once what changed here is on the drive (Photos/new.jpg)', where)).toBe(
      'Left out of this computer: its copy here is removed once what changed here is on the drive (Photos/new.jpg).',
    );
    const moved = 'was moved on the drive into Archive, which this computer leaves out, and has changes made here: it is kept here and not synced; include Archive or move it back on the drive';
    expect(plainProblem(moved, where)).toBe(
      'It was moved on the drive into Archive, which this computer leaves out, and it has changes made here: it is kept here and not synced. Include Archive with Choose folders… in Settings, or move it back on the drive.',
    );
    for (const line of [space, LEFT_OUT_PLACE('Photos'), moved]) expect(plainProblem(line, where)).not.toMatch(/drivesync (ex|in)clude/);
  });

  it('turns a line back into the kind of failure it was made from', () => {
    expect(apiErrorOfLine('GET /x: connection refused')?.kind).toBe('network');
    expect(apiErrorOfLine('GET /x: server error 500: boom')?.kind).toBe('server');
    expect(apiErrorOfLine('DELETE /x: not found')?.kind).toBe('not-found');
    expect(apiErrorOfLine('GET /file-entries/{entryId}: the request was cancelled')?.kind).toBe('aborted');
    expect(apiErrorOfLine('no endpoint here')).toBeNull();
  });
});
