import type { DrivesyncApi } from '../../main/contract/index.js';

declare global {
  interface Window {
    /** Exposed by the preload (preload/index.ts). */
    readonly drivesync: DrivesyncApi;
  }
}

export {};
