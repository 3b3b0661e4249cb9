/** Electron's entry point (package.json "main" → dist/main/app/main.js). */
import { runApp } from './app.js';

void runApp();
