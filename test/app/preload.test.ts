/**
 * The preload: the API it builds (calls on contract channels only, subscriptions whose unsubscribe really removes
 * the ipcRenderer listener), what it exposes through contextBridge, and the CommonJS bundle a sandboxed preload
 * needs (it may require nothing but electron).
 */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', async () => (await import('./fake-electron.js')).fakeElectron());

import { API_NAME, EVENT_NAMES, INVOKE_CHANNELS, ipcEventChannel, ipcInvokeChannel, type DrivesyncApi } from '../../main/contract/index.js';
import { createDrivesyncApi } from '../../preload/api.js';
import { fake, ipcRenderer } from './fake-electron.js';
import { tempDir } from '../helpers/temp.js';

function fakeIpc() {
  const emitter = new EventEmitter();
  return Object.assign(emitter, { invoke: vi.fn(async (channel: string, arg: unknown) => ({ ok: true, value: { channel, arg } })) });
}

describe('the preload API', () => {
  it('sends each call on its contract channel with its one argument, and refuses others', async () => {
    const ipc = fakeIpc();
    const api = createDrivesyncApi(ipc);
    expect(await api.invoke('share:list', { root: '/r', path: 'a.txt' })).toEqual({ ok: true, value: { channel: ipcInvokeChannel('share:list'), arg: { root: '/r', path: 'a.txt' } } });
    await api.invoke('status:get');
    expect(ipc.invoke).toHaveBeenLastCalledWith('drivesync:invoke:status:get', undefined);
    const refused = await (api.invoke as (c: string) => Promise<unknown>)('shell:exec');
    expect(refused).toMatchObject({ ok: false, error: { kind: 'invalid-argument' } });
    expect(ipc.invoke).toHaveBeenCalledTimes(2);
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('delivers event payloads without the IPC event, and unsubscribe removes the ipcRenderer listener', () => {
    const ipc = fakeIpc();
    const api = createDrivesyncApi(ipc);
    const channel = ipcEventChannel('state');
    const seen: unknown[] = [];
    const off = api.on('state', (s) => seen.push(s));
    const off2 = api.on('state', () => undefined);
    expect(ipc.listenerCount(channel)).toBe(2);
    ipc.emit(channel, { senderId: 0, sender: 'secret' }, { state: 'idle' });
    expect(seen).toEqual([{ state: 'idle' }]);
    off();
    expect(ipc.listenerCount(channel)).toBe(1);
    off(); // twice is harmless and removes nothing else
    expect(ipc.listenerCount(channel)).toBe(1);
    ipc.emit(channel, {}, { state: 'error' });
    expect(seen).toHaveLength(1);
    off2();
    expect(ipc.listenerCount(channel)).toBe(0);
    for (const name of EVENT_NAMES) expect(ipc.listenerCount(ipcEventChannel(name))).toBe(0);
    expect(() => (api.on as (e: string, l: () => void) => void)('anything', () => undefined)).toThrow(/unknown event/);
  });

  it('is what preload/index.ts exposes as window.drivesync, over the real ipcRenderer', async () => {
    await import('../../preload/index.js');
    const api = fake.exposed.get(API_NAME) as DrivesyncApi;
    expect(api).toBeDefined();
    expect(Object.keys(api).sort()).toEqual(['invoke', 'on']);
    const off = api.on('progress', () => undefined);
    expect(ipcRenderer.listenerCount(ipcEventChannel('progress'))).toBe(1);
    off();
    expect(ipcRenderer.listenerCount(ipcEventChannel('progress'))).toBe(0);
  });

  it('bundles to CommonJS that requires only electron and exposes the API', async () => {
    // @ts-expect-error -- a plain .mjs script without declarations
    const { buildPreload } = (await import('../../scripts/build-preload.mjs')) as { buildPreload: (out: string) => Promise<string> };
    const out = await buildPreload(join(tempDir('preload'), 'index.cjs'));
    const code = readFileSync(out, 'utf8');
    const required: string[] = [];
    const exposed = new Map<string, DrivesyncApi>();
    const ipc = fakeIpc();
    const module = { exports: {} };
    runInNewContext(code, {
      module,
      exports: module.exports,
      require: (name: string) => {
        required.push(name);
        if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
        return { contextBridge: { exposeInMainWorld: (key: string, api: DrivesyncApi) => exposed.set(key, api) }, ipcRenderer: ipc };
      },
    });
    expect(required).toEqual(['electron']);
    const api = exposed.get(API_NAME)!;
    await api.invoke('sync:now');
    expect(ipc.invoke).toHaveBeenCalledWith(ipcInvokeChannel('sync:now'), undefined);
    const off = api.on('activity', () => undefined);
    expect(ipc.listenerCount(ipcEventChannel('activity'))).toBe(1);
    off();
    expect(ipc.listenerCount(ipcEventChannel('activity'))).toBe(0);
    for (const channel of INVOKE_CHANNELS) expect(code).toContain(`"${channel}"`);
  });
});
