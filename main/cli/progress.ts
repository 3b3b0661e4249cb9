/**
 * What `sync` shows while it runs: on a terminal, one live progress line (files and bytes done, rate, ETA, current
 * transfers) with finished items above it; elsewhere, plain log lines. Problems go to stderr.
 */
import type { Activity, EngineState, PassSummary, TransferEvent } from '../state/folder.js';
import { humanBytes, offlineReason, safe } from './output.js';

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
  'drop-local': 'excluded, removed from this computer (still on the drive):',
  // A conflict is told by the engine's notice, which names both versions (`both sides changed a.txt; your version is
  // kept as …`): a line of its own per version would say it three times.
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

/**
 * Counters of one pass. Only the files in flight are kept one by one (a few, the transfer concurrency); finished
 * ones are sums, so a pass of 100,000 uploads costs neither memory nor a walk over every file per progress event.
 */
export class PassProgress {
  private inFlight = new Map<string, { transferred: number; total: number }>();
  /** Paths whose transfer finished: a path done twice in a pass (planned again) counts once. */
  private done = new Set<string>();
  private finishedBytes = 0;
  changes = 0;
  private samples: Array<{ at: number; bytes: number }> = [];
  private startedAt = Date.now();

  reset(): void {
    this.startedAt = Date.now();
    this.inFlight.clear();
    this.done.clear();
    this.finishedBytes = 0;
    this.changes = 0;
    this.samples = [];
  }

  transfer(event: TransferEvent): void {
    const total = event.total ?? Math.max(event.transferred, this.inFlight.get(event.path)?.total ?? 0);
    this.inFlight.set(event.path, { transferred: event.transferred, total });
    const now = Date.now();
    this.samples.push({ at: now, bytes: this.bytesDone });
    while (this.samples.length > 2 && now - this.samples[0]!.at > 5_000) this.samples.shift();
  }

  activity(activity: Activity): void {
    this.changes++;
    if (!TRANSFER_KINDS.has(activity.kind)) return;
    const file = this.inFlight.get(activity.path);
    this.inFlight.delete(activity.path);
    if (this.done.has(activity.path)) return;
    this.done.add(activity.path);
    this.finishedBytes += file?.total ?? 0;
  }

  get filesDone(): number {
    return this.done.size;
  }

  /** Files of the pass: those transferred or transferring (never fewer than those done). */
  get filesTotal(): number {
    let transferring = 0;
    for (const path of this.inFlight.keys()) if (!this.done.has(path)) transferring++;
    return this.done.size + transferring;
  }

  get bytesDone(): number {
    let sum = this.finishedBytes;
    for (const f of this.inFlight.values()) sum += Math.min(f.transferred, f.total);
    return sum;
  }

  get bytesTotal(): number {
    let sum = this.finishedBytes;
    for (const f of this.inFlight.values()) sum += f.total;
    return sum;
  }

  /** Bytes per second over the last few seconds. */
  get rate(): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (first && last && last.at - first.at >= 500) return Math.max(0, ((last.bytes - first.bytes) * 1000) / (last.at - first.at));
    // Too little time in the window: the average since the pass began.
    const elapsed = Date.now() - this.startedAt;
    return elapsed > 0 ? (this.bytesDone * 1000) / elapsed : 0;
  }

  get current(): string[] {
    return [...this.inFlight].filter(([, f]) => f.transferred < f.total).map(([path]) => path);
  }
}

const STATE_WORDS: Record<EngineState, string> = {
  starting: 'starting',
  idle: 'idle',
  scanning: 'scanning',
  syncing: 'syncing',
  paused: 'paused',
  'waiting-for-consent': 'waiting',
  offline: 'offline',
  error: 'error',
  stopped: 'stopped',
};

function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '--';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * The live line: while a pass transfers, a bar with files and bytes done, rate, ETA and current transfers; otherwise
 * the state in words (a line of zeros and `ETA --` says nothing).
 */
export function liveLine(label: string, detail: string | undefined, p: PassProgress): string {
  const total = p.bytesTotal;
  const done = p.bytesDone;
  const files = `files ${p.filesDone}/${p.filesTotal}`;
  if (label === 'offline') return `offline${detail ? ` (${safe(offlineReason(detail))})` : ''}: trying again`;
  if (label === 'error' || label === 'paused') return `${label}${detail ? `: ${safe(detail)}` : ''}`;
  // The detail is the question itself ("waiting for your answer to delete 12 items").
  if (label === 'waiting') return detail ? safe(detail) : 'waiting for your answer';
  if (p.filesTotal === 0) return label;
  const ratio = total > 0 ? Math.min(1, done / total) : 0;
  const width = 20;
  const filled = Math.round(ratio * width);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
  const rate = p.rate;
  const eta = rate > 0 ? (total - done) / rate : NaN;
  const current = p.current.map((c) => safe(c)).join(', ');
  const parts = [
    `${label.padEnd(8)} ${bar} ${String(Math.round(ratio * 100)).padStart(3)}%`,
    files,
    `${humanBytes(done)}/${humanBytes(total)}`,
    `${humanBytes(rate)}/s`,
    `ETA ${formatEta(eta)}`,
  ];
  if (current) parts.push(current);
  return parts.join(' | ');
}

/** Least time between two redraws of the live line. */
const REDRAW_MS = 125;

/**
 * The live line on a terminal: drawn in place on the last line, cut to the terminal's width (a wrapped line could
 * not be taken back with a carriage return), taken off before any other line is written and drawn again after it,
 * so nothing is ever written onto it. At rest it is off the screen.
 */
export class TtyReporter implements Reporter {
  private readonly progress = new PassProgress();
  private label = 'starting';
  private detail: string | undefined;
  /** What the live line shows now; empty when it is off the screen. */
  private drawn = '';
  private lastDraw = 0;
  private timer: NodeJS.Timeout | null = null;
  private suspended = false;

  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {}

  /** The line as it should be now ('' at rest: in sync, or idle with nothing done). */
  private text(): string {
    if (this.suspended || this.label === 'in sync' || this.label === 'idle') return '';
    const width = Math.max(20, (this.out.columns || 120) - 1);
    const line = liveLine(this.label, this.detail, this.progress);
    return line.length > width ? `${line.slice(0, width - 1)}…` : line;
  }

  private draw(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const text = this.text();
    if (text === this.drawn) return;
    this.out.write(`\r\x1b[2K${text}`);
    this.drawn = text;
    this.lastDraw = Date.now();
  }

  /** Redraws at most every REDRAW_MS: at once after a quiet spell, else when the interval is up. */
  private refresh(): void {
    const wait = this.lastDraw + REDRAW_MS - Date.now();
    if (wait <= 0) this.draw();
    else this.timer ??= setTimeout(() => this.draw(), wait);
  }

  private erase(): void {
    if (this.drawn !== '') this.out.write('\r\x1b[2K');
    this.drawn = '';
  }

  /** Lines that came while the terminal was handed to a question: written once it is answered, never over it. */
  private held: Array<[NodeJS.WriteStream, string]> = [];

  /** Writes a whole line above the live line. */
  private above(stream: NodeJS.WriteStream, line: string): void {
    if (this.suspended) {
      this.held.push([stream, line]);
      return;
    }
    this.erase();
    stream.write(`${line}\n`);
    this.draw();
  }

  state(state: EngineState, detail?: string): void {
    if (state === 'scanning') this.progress.reset();
    // A pass that ends in sync leaves the engine idle: the line stays off until something changes.
    if (state === 'idle' && this.label === 'in sync') return;
    this.label = STATE_WORDS[state];
    this.detail = detail;
    this.refresh();
  }

  activity(activity: Activity): void {
    this.progress.activity(activity);
    const line = describeActivity(activity);
    if (line) this.above(this.out, line);
    else this.refresh();
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
    if (summary.inSync) {
      this.label = 'in sync';
      this.detail = undefined;
    }
    this.refresh();
  }

  suspend(): void {
    this.suspended = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.erase();
  }

  resume(): void {
    this.suspended = false;
    for (const [stream, line] of this.held.splice(0)) stream.write(`${line}\n`);
    this.refresh();
  }

  close(): void {
    this.suspend();
    for (const [stream, line] of this.held.splice(0)) stream.write(`${line}\n`);
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
