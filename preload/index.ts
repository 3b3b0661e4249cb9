/**
 * The preload of the app's window (sandboxed, bundled to CommonJS by scripts/build-preload.mjs): it exposes the one
 * typed API of the contract as `window.drivesync` and nothing else.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { API_NAME } from '../main/contract/index.js';
import { createDrivesyncApi } from './api.js';

contextBridge.exposeInMainWorld(API_NAME, createDrivesyncApi(ipcRenderer));
