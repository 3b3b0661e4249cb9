/**
 * The reference server in a process of its own for the benchmarks: prints `listening on URL`, and stops when its
 * stdin closes (the benchmark that started it ended, or died).
 */
import { startServer } from '../../server/app.js';

const dataDir = process.env.BENCH_SERVER_DATA;
if (!dataDir) throw new Error('BENCH_SERVER_DATA is not set');
const profile = process.env.BENCH_SERVER_PROFILE === 'deployed' ? 'deployed' : 'documents';
const server = await startServer({ port: 0, host: '127.0.0.1', dataDir, profile });
process.stdout.write(`listening on ${server.url}\n`);
let closing = false;
const stop = () => {
  if (closing) return;
  closing = true;
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
