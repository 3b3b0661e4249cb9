/**
 * The host in another process: calls, events and the platform's requests as plain messages over a port. The same
 * code serves Electron's utility process (`process.parentPort` / `UtilityProcess`) and a Node child or worker
 * (`process.send` / MessagePort), so it is tested without Electron.
 */
import { EventEmitter } from 'node:events';
import { EVENT_NAMES, type EventName, type InvokeArg, type InvokeChannel, type InvokeResult, type Result } from '../../contract/index.js';
import { dispatch, type ContractHandler } from './dispatch.js';
import type { HostEvents } from './events.js';
import { HostError } from './failures.js';
import type { HostPlatform } from './host.js';

export interface Port {
  postMessage(message: unknown): void;
  /** Subscribes; answers the unsubscribe function. */
  onMessage(listener: (message: unknown) => void): () => void;
}

export type PlatformOp = keyof HostPlatform;

export type HostMessage =
  | { type: 'call'; id: number; channel: string; arg: unknown }
  | { type: 'result'; id: number; result: Result<unknown> }
  | { type: 'event'; name: EventName; payload: unknown }
  | { type: 'platform'; id: number; op: PlatformOp; arg: unknown }
  | { type: 'platform-result'; id: number; ok: boolean; message?: string; value?: unknown }
  | { type: 'ready' }
  | { type: 'shutdown' };

const isMessage = (m: unknown): m is HostMessage => typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string';

/** A HostPlatform whose requests go to the other end of the port (the main process). */
export function remotePlatform(port: Port): HostPlatform & { detach(): void } {
  let nextId = 1;
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (e: Error) => void }>();
  const detach = port.onMessage((m) => {
    if (!isMessage(m) || m.type !== 'platform-result') return;
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.ok) w.resolve(m.value);
    else w.reject(new HostError('failed', m.message ?? 'the desktop could not do that'));
  });
  const request = (op: PlatformOp, arg: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      port.postMessage({ type: 'platform', id, op, arg } satisfies HostMessage);
    });
  return {
    copyText: async (text) => void (await request('copyText', text)),
    openPath: async (path) => void (await request('openPath', path)),
    setStartAtLogin: async (enabled) => void (await request('setStartAtLogin', enabled)),
    showItemInFolder: async (path) => void (await request('showItemInFolder', path)),
    pickFolder: async () => {
      const picked = await request('pickFolder', null);
      return typeof picked === 'string' ? picked : null;
    },
    detach,
  };
}

/**
 * Serves a host over a port: runs calls, forwards every event. `onShutdown` runs when the other side asks the
 * process to end.
 */
export function serveHost(host: ContractHandler & EventEmitter<HostEvents>, port: Port, onShutdown: () => void): () => void {
  const forwarders = EVENT_NAMES.map((name) => {
    const listener = (payload: unknown) => port.postMessage({ type: 'event', name, payload } satisfies HostMessage);
    (host as unknown as EventEmitter).on(name, listener);
    return () => (host as unknown as EventEmitter).off(name, listener);
  });
  const detach = port.onMessage((m) => {
    if (!isMessage(m)) return;
    if (m.type === 'call') {
      void dispatch(host, m.channel, m.arg).then((result) => port.postMessage({ type: 'result', id: m.id, result } satisfies HostMessage));
    } else if (m.type === 'shutdown') {
      onShutdown();
    }
  });
  port.postMessage({ type: 'ready' } satisfies HostMessage);
  return () => {
    detach();
    for (const off of forwarders) off();
  };
}

/**
 * The main process's side: calls answered by the host in the other process, its events re-emitted here, and its
 * platform requests carried out by `platform`.
 */
export class HostProxy extends EventEmitter<HostEvents> implements ContractHandler {
  private nextId = 1;
  private readonly waiting = new Map<number, (result: Result<unknown>) => void>();
  private readonly detach: () => void;
  readonly ready: Promise<void>;

  constructor(
    private readonly port: Port,
    platform: HostPlatform,
  ) {
    super();
    let markReady!: () => void;
    this.ready = new Promise((resolve) => (markReady = resolve));
    this.detach = port.onMessage((m) => {
      if (!isMessage(m)) return;
      switch (m.type) {
        case 'ready':
          markReady();
          break;
        case 'result': {
          const resolve = this.waiting.get(m.id);
          this.waiting.delete(m.id);
          resolve?.(m.result);
          break;
        }
        case 'event':
          if ((EVENT_NAMES as string[]).includes(m.name)) (this as unknown as EventEmitter).emit(m.name, m.payload);
          break;
        case 'platform': {
          const run = async () => {
            const op = platform[m.op];
            if (typeof op !== 'function') throw new Error(`unknown request ${String(m.op)}`);
            return (op as (arg: unknown) => unknown).call(platform, m.arg);
          };
          run().then(
            (value) => port.postMessage({ type: 'platform-result', id: m.id, ok: true, ...(value === undefined ? {} : { value }) } satisfies HostMessage),
            (error: unknown) => port.postMessage({ type: 'platform-result', id: m.id, ok: false, message: (error as Error).message } satisfies HostMessage),
          );
          break;
        }
        default:
          break;
      }
    });
  }

  /** Sends a call; answers the host's Result as it is. */
  call(channel: string, arg: unknown): Promise<Result<unknown>> {
    return new Promise((resolve) => {
      const id = this.nextId++;
      this.waiting.set(id, resolve);
      this.port.postMessage({ type: 'call', id, channel, arg: arg === undefined ? null : arg } satisfies HostMessage);
    });
  }

  async handle<C extends InvokeChannel>(channel: C, arg: InvokeArg<C>): Promise<InvokeResult<C>> {
    const result = await this.call(channel, arg);
    if (result.ok) return result.value as InvokeResult<C>;
    throw new HostError(result.error.kind, result.error.message, result.error.fields);
  }

  /** Asks the host process to stop its engines and end; answers nothing further. */
  shutdown(): void {
    this.port.postMessage({ type: 'shutdown' } satisfies HostMessage);
    for (const resolve of this.waiting.values()) resolve({ ok: false, error: { kind: 'aborted', message: 'the app is closing' } });
    this.waiting.clear();
    this.detach();
  }
}
