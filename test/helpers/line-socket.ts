/**
 * A client of the file manager's socket (docs/file-manager.md), as an extension is: it sends lines and reads the
 * answers, and gathers the CHANGED lines a WATCH brings.
 */
import { connect, type Socket } from 'node:net';
import { eventually } from './eventually.js';

export class LineSocket {
  readonly lines: string[] = [];
  private buffer = '';
  private closedFlag = false;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let end = this.buffer.indexOf('\n'); end >= 0; end = this.buffer.indexOf('\n')) {
        this.lines.push(this.buffer.slice(0, end));
        this.buffer = this.buffer.slice(end + 1);
      }
    });
    socket.on('close', () => (this.closedFlag = true));
    socket.on('error', () => (this.closedFlag = true));
  }

  static open(path: string): Promise<LineSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect(path, () => resolve(new LineSocket(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  send(raw: string | Buffer): void {
    this.socket.write(raw);
  }

  /** Sends one line and gives the answer's lines: one, or up to a line starting with `last`. */
  async ask(line: string, last?: string): Promise<string[]> {
    const from = this.lines.length;
    this.socket.write(`${line}\n`);
    const ends = (l: string) => (last ? l.startsWith(last) : !l.startsWith('CHANGED\t'));
    await eventually(() => this.lines.slice(from).some(ends), { within: 15_000, every: 5, what: `an answer to ${JSON.stringify(line)}` });
    const answer = this.lines.slice(from).filter((l) => !l.startsWith('CHANGED\t'));
    return last ? answer.slice(0, answer.findIndex((l) => l.startsWith(last)) + 1) : answer.slice(0, 1);
  }

  close(): void {
    this.socket.destroy();
  }
}
