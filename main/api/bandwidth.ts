import { Transform } from 'node:stream';
import { TokenBucket } from 'limiter';

export interface BandwidthSettings {
  /** Bytes per second for uploads; 0 or absent: no limit. */
  upBytesPerSecond?: number;
  /** Bytes per second for downloads; 0 or absent: no limit. */
  downBytesPerSecond?: number;
}

/**
 * One limit for every transfer of an account, in each direction (token buckets from `limiter`). It can change
 * while transfers run: each chunk asks the bucket in force when it passes.
 */
export class BandwidthLimit {
  private up: TokenBucket | null = null;
  private down: TokenBucket | null = null;
  private settings: BandwidthSettings = {};

  constructor(settings: BandwidthSettings = {}) {
    this.set(settings);
  }

  /** The limits in force. */
  get current(): BandwidthSettings {
    return { ...this.settings };
  }

  set(settings: BandwidthSettings): void {
    this.settings = { ...settings };
    const bucket = (rate: number | undefined) =>
      rate && rate > 0 ? new TokenBucket({ bucketSize: Math.max(1, Math.floor(rate)), tokensPerInterval: rate, interval: 'second' }) : null;
    this.up = bucket(settings.upBytesPerSecond);
    this.down = bucket(settings.downBytesPerSecond);
  }

  /** A pass-through stream that holds each chunk until its direction's bucket lets it go. */
  throttle(direction: 'up' | 'down'): Transform {
    const bucketOf = () => (direction === 'up' ? this.up : this.down);
    return new Transform({
      transform(chunk: Buffer, _encoding, done) {
        void (async () => {
          let rest = chunk;
          while (rest.length > 0) {
            const bucket = bucketOf();
            if (!bucket) {
              this.push(rest);
              break;
            }
            // A chunk larger than the bucket goes in pieces the bucket can hold.
            const piece = rest.subarray(0, bucket.bucketSize);
            await bucket.removeTokens(piece.length);
            this.push(piece);
            rest = rest.subarray(piece.length);
          }
        })().then(() => done(), done);
      },
    });
  }
}
