/**
 * What `sync` shows while it runs: on a terminal, one live progress line (cli-progress: files and bytes done, rate,
 * ETA, current transfers) with finished items above it; elsewhere, plain log lines. Problems go to stderr.
 */
import cliProgress from 'cli-progress';
import type { Activity, EngineState, PassSummary } from '../sync/engine.js';
import type { TransferEvent } from '../sync/execute.js';
import { humanBytes, safe } from './output.js';

const VERBS: Partial<Record<Activity['kind'], string>> = {
  upload: 'uploaded',
  'replace-remote': 'uploaded the new version of',
  'create-remote-folder': 'created the folder on the drive:',
  'rename-remote': 'renamed on the drive:',
  'move-remote': 'moved on the drive:',
  'trash-remote': "moved to the drive's trash:",
  download: 'downloaded',
  'create-local-folder': 'created the folder',
  'move-local': 'moved',
  'trash-local': 'moved to the OS trash:',
  conflict: 'both sides changed, kept both:',
};

const TRANSFER_KINDS = new Set<Activity['kind']>(['upload', 'replace-remote', 'download', 'conflict']);

export function describeActivity(activity: Activity, pathOf: (path: string) => string = (p) => p): string | null {
  const verb = VERBS[activity.kind];
  return verb ? `${verb} ${safe(pathOf(activity.path))}` : null;
}

export interface Reporter {
  state(state: EngineState, detail?: string): void;
  activity(activity: Activity): void;
  transfer(event: TransferEvent): void;
  /** An informational line (a notice of the engine, a pass's result). */
  info(line: string): void;
  /** A problem, as one line on stderr. */
  problem(line: string): void;
  passEnded(summary: PassSummary): void;
  /** Takes the live line off the terminal (before a question, or at the end). */
  suspend(): void;
  resume(): void;
  close(): void;
}

/** Counters of one pass. */
class PassProgress {
  files = new Map<string, { transferred: number; total: number }>();
  filesDone = 0;
  changes = 0;
  private samples: Array<{ at: number; bytes: number }> = [];
  private startedAt = Date.now();

  reset(): void {
    this.startedAt = Date.now();
    this.files.clear();
    this.filesDone = 0;
    this.changes = 0;
    this.samples = [];
  }

  transfer(event: TransferEvent): void {
    const total = event.total ?? Math.max(event.transferred, this.files.get(event.path)?.total ?? 0);
    this.files.set(event.path, { transferred: event.transferred, total });
    const now = Date.now();
    this.samples.push({ at: now, bytes: this.bytesDone });
    while (this.samples.length > 2 && now - this.samples[0]!.at > 5_000) this.samples.shift();
  }

  activity(activity: Activity): void {
    this.changes++;
    if (TRANSFER_KINDS.has(activity.kind)) {
      this.filesDone++;
      const file = this.files.get(activity.path);
      if (file) file.transferred = file.total;
      else this.files.set(activity.path, { transferred: 0, total: 0 });
    }
  }

  get bytesDone(): number {
    let sum = 0;
    for (const f of this.files.values()) sum += f.transferred;
    return sum;
  }

  get bytesTotal(): number {
    let sum = 0;
    for (const f of this.files.values()) sum += f.total;
    return sum;
  }

  /** Bytes per second over the last few seconds. */
  get rate(): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (first && last && last.at - first.at >= 500) return ((last.bytes - first.bytes) * 1000) / (last.at - first.at);
    // Too little time in the window: the average since the pass began.
    const elapsed = Date.now() - this.startedAt;
    return elapsed > 0 ? (this.bytesDone * 1000) / elapsed : 0;
  }

  get current(): string[] {
    return [...this.files].filter(([, f]) => f.transferred < f.total).map(([path]) => path);
  }
}

const STATE_WORDS: Record<EngineState, string> = {
  idle: 'idle',
  scanning: 'scanning',
  syncing: 'syncing',
  paused: 'paused',
  offline: 'offline',
  error: 'error',
};

function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '--';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

/** The live line on a terminal. */
export class TtyReporter implements Reporter {
  private readonly progress = new PassProgress();
  private readonly bar: cliProgress.SingleBar;
  private label = 'starting';
  private active = false;

  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {
    this.bar = new cliProgress.SingleBar({
      stream: out,
      fps: 8,
      hideCursor: true,
      linewrap: false,
      gracefulExit: false,
      clearOnComplete: false,
      format: (options, params) => this.format(options, params),
    });
    this.start();
  }

  private start(): void {
    this.bar.start(1, 0);
    this.active = true;
  }

  private format(options: cliProgress.Options, params: cliProgress.Params): string {
    const p = this.progress;
    const total = p.bytesTotal;
    const done = p.bytesDone;
    const ratio = total > 0 ? Math.min(1, done / total) : this.label === 'in sync' ? 1 : 0;
    const width = 20;
    const filled = Math.round(ratio * width);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    const rate = p.rate;
    const eta = rate > 0 ? (total - done) / rate : NaN;
    const current = p.current.map((c) => safe(c)).join(', ');
    const parts = [
      `${this.label.padEnd(8)} ${bar} ${String(Math.round(ratio * 100)).padStart(3)}%`,
      `files ${p.filesDone}/${p.files.size}`,
      `${humanBytes(done)}/${humanBytes(total)}`,
      `${humanBytes(rate)}/s`,
      `ETA ${formatEta(eta)}`,
    ];
    if (current) parts.push(current);
    void options;
    void params;
    return parts.join(' | ');
  }

  private refresh(): void {
    if (this.active) this.bar.update(this.progress.bytesDone, {});
  }

  /** Writes a whole line above the live line. */
  private above(stream: NodeJS.WriteStream, line: string): void {
    if (this.active) this.out.write('\r\x1b[2K');
    stream.write(`${line}\n`);
    if (this.active) this.bar.render();
  }

  state(state: EngineState): void {
    if (state === 'scanning') this.progress.reset();
    this.label = STATE_WORDS[state];
    this.refresh();
  }

  activity(activity: Activity): void {
    this.progress.activity(activity);
    const line = describeActivity(activity);
    if (line) this.above(this.out, line);
    this.refresh();
  }

  transfer(event: TransferEvent): void {
    this.progress.transfer(event);
    this.refresh();
  }

  info(line: string): void {
    this.above(this.out, line);
  }

  problem(line: string): void {
    this.above(process.stderr, `drivesync: ${line}`);
  }

  passEnded(summary: PassSummary): void {
    if (summary.inSync) this.label = 'in sync';
    this.refresh();
  }

  suspend(): void {
    if (!this.active) return;
    // cli-progress restores the cursor to where the bar started; lines were written above it since, so the bar's
    // line is where it must go back to.
    this.out.write('\x1b7');
    this.bar.stop();
    this.active = false;
  }

  resume(): void {
    if (!this.active) this.start();
  }

  close(): void {
    this.suspend();
  }
}

/** Plain lines, for a pipe or a file. */
export class PlainReporter implements Reporter {
  state(): void {
    // An error or offline state also ends the pass with its failures, which are reported one line each.
  }

  activity(activity: Activity): void {
    const line = describeActivity(activity);
    if (line) process.stdout.write(`${line}\n`);
  }

  transfer(): void {
    // Per-chunk progress is for the terminal only.
  }

  info(line: string): void {
    process.stdout.write(`${line}\n`);
  }

  problem(line: string): void {
    process.stderr.write(`drivesync: ${line.split('\n')[0]}\n`);
  }

  passEnded(): void {}
  suspend(): void {}
  resume(): void {}
  close(): void {}
}
