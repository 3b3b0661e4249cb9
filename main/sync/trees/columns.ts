/**
 * The column storage under the three trees: typed arrays for numbers and flags, arrays for strings, rows reused after
 * deletion, and the encodings that make a row small (time stamps as numbers, sha256 digests as 32 bytes). The trees
 * (trees.ts) are Maps to their users built on these.
 */
import type { ItemType, RelPath } from '../model/types.js';

export const FOLDER = 1;
/** Base's type column also holds whether this computer made the entry. */
export const MADE_HERE = 2;
export const typeCode = (type: ItemType) => (type === 'folder' ? FOLDER : 0);
export const typeOf = (code: number): ItemType => (code === FOLDER ? 'folder' : 'file');

export const grownF64 = (column: Float64Array, capacity: number) => {
  const next = new Float64Array(capacity);
  next.set(column);
  return next;
};
export const grownU8 = (column: Uint8Array, capacity: number) => {
  const next = new Uint8Array(capacity);
  next.set(column);
  return next;
};

/** What every store answers as a Map from its own `entries`. */
export abstract class MapShape<K, V> implements Map<K, V> {
  abstract readonly size: number;
  abstract get(key: K): V | undefined;
  abstract has(key: K): boolean;
  abstract set(key: K, value: V): this;
  abstract delete(key: K): boolean;
  abstract clear(): void;
  abstract entries(): MapIterator<[K, V]>;
  abstract keys(): MapIterator<K>;
  abstract values(): MapIterator<V>;

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  get [Symbol.toStringTag](): string {
    return 'Map';
  }
}

/** The row bookkeeping every store shares: key → row, rows reused after deletion. */
export abstract class ColumnMap<K, V> extends MapShape<K, V> {
  protected readonly rows = new Map<K, number>();
  private readonly free: number[] = [];
  private used = 0;
  protected capacity = 0;

  /** Makes room for rows up to `capacity`. */
  protected abstract grow(capacity: number): void;
  protected abstract write(row: number, value: V): void;
  /** The item of a row; its key is given, for items that carry it (ids). */
  protected abstract read(row: number, key: K): V;
  /** Drops what a row holds beyond its numbers (its strings), so they can be collected. */
  protected abstract release(row: number): void;

  get size(): number {
    return this.rows.size;
  }

  get(key: K): V | undefined {
    const row = this.rows.get(key);
    return row === undefined ? undefined : this.read(row, key);
  }

  has(key: K): boolean {
    return this.rows.has(key);
  }

  set(key: K, value: V): this {
    let row = this.rows.get(key);
    if (row === undefined) {
      row = this.free.pop() ?? this.used++;
      if (row >= this.capacity) {
        this.capacity = Math.max(1024, this.capacity * 2);
        this.grow(this.capacity);
      }
      this.rows.set(key, row);
    }
    this.write(row, value);
    return this;
  }

  delete(key: K): boolean {
    const row = this.rows.get(key);
    if (row === undefined) return false;
    this.rows.delete(key);
    this.release(row);
    this.free.push(row);
    return true;
  }

  clear(): void {
    for (const key of [...this.rows.keys()]) this.delete(key);
  }

  *entries(): MapIterator<[K, V]> {
    for (const [key, row] of this.rows) yield [key, this.read(row, key)];
  }

  keys(): MapIterator<K> {
    return this.rows.keys();
  }

  *values(): MapIterator<V> {
    for (const [key, row] of this.rows) yield this.read(row, key);
  }
}

/**
 * Timestamps as the service writes them (`2026-11-22T09:01:58.961617Z`) fit a number: whole seconds scaled by the
 * fraction's digits, plus the fraction; the digit count is kept to write the same text back. Anything that does not
 * come back identical is kept as text.
 */
export const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?Z$/;
export const AS_TEXT = 255;
/** Formatted seconds kept by a stamp column (a power of two). */
export const WHOLE_CACHE_SLOTS = 1024;

export class StampColumn {
  private value = new Float64Array(0);
  private digits = new Uint8Array(0);
  private readonly text = new Map<number, string>();

  grow(capacity: number): void {
    this.value = grownF64(this.value, capacity);
    this.digits = grownU8(this.digits, capacity);
  }

  write(row: number, stamp: string): void {
    this.text.delete(row);
    const match = STAMP.exec(stamp);
    if (match) {
      const seconds = Date.parse(`${match[1]}Z`) / 1000;
      const fraction = match[2] ?? '';
      const value = seconds * 10 ** fraction.length + (fraction === '' ? 0 : Number(fraction));
      this.value[row] = value;
      this.digits[row] = fraction.length;
      if (Number.isSafeInteger(value) && this.read(row) === stamp) return;
    }
    this.digits[row] = AS_TEXT;
    this.text.set(row, stamp);
  }

  read(row: number): string {
    const digits = this.digits[row]!;
    if (digits === AS_TEXT) return this.text.get(row)!;
    const scale = 10 ** digits;
    const value = this.value[row]!;
    const seconds = Math.floor(value / scale);
    const whole = this.wholeSeconds(seconds);
    return digits === 0 ? `${whole}Z` : `${whole}.${String(value - seconds * scale).padStart(digits, '0')}Z`;
  }

  /**
   * The date and time to the second, from a small cache: a planning round reads every stamp several times, and
   * stamps cluster (what was uploaded or listed together), so formatting through Date each time was most of a round.
   */
  private wholeSeconds(seconds: number): string {
    const slot = seconds & (WHOLE_CACHE_SLOTS - 1);
    if (this.cachedSeconds[slot] === seconds && this.cachedWhole[slot] !== undefined) return this.cachedWhole[slot]!;
    const whole = new Date(seconds * 1000).toISOString().slice(0, 19);
    this.cachedSeconds[slot] = seconds;
    this.cachedWhole[slot] = whole;
    return whole;
  }

  private readonly cachedSeconds = new Float64Array(WHOLE_CACHE_SLOTS);
  private readonly cachedWhole: Array<string | undefined> = new Array(WHOLE_CACHE_SLOTS);

  release(row: number): void {
    this.text.delete(row);
  }

  /** Row `row` holds the stamp row `otherRow` of another column holds (one text is always stored alike). */
  sameAs(row: number, other: StampColumn, otherRow: number): boolean {
    const digits = this.digits[row]!;
    if (digits !== other.digits[otherRow]) return false;
    return digits === AS_TEXT ? this.text.get(row) === other.text.get(otherRow) : this.value[row] === other.value[otherRow];
  }


}

/** sha256 digests as 32 bytes instead of 64-character strings; any other text is kept as text. */
/** A sha256 as lowercase hex digits (what the scan and the transfers compute). */
export const SHA256_HEX = /^[0-9a-f]{64}$/;
export const NO_HASH = 0;
export const HASH_BYTES = 1;
export const HASH_TEXT = 2;

export class HashColumn {
  private bytes = Buffer.alloc(0);
  private kind = new Uint8Array(0);
  private readonly text = new Map<number, string>();

  grow(capacity: number): void {
    const bytes = Buffer.alloc(capacity * 32);
    this.bytes.copy(bytes);
    this.bytes = bytes;
    this.kind = grownU8(this.kind, capacity);
  }

  write(row: number, hash: string | null | undefined): void {
    this.text.delete(row);
    if (hash === null || hash === undefined) this.kind[row] = NO_HASH;
    else if (SHA256_HEX.test(hash)) {
      this.bytes.write(hash, row * 32, 32, 'hex');
      this.kind[row] = HASH_BYTES;
    } else {
      this.text.set(row, hash);
      this.kind[row] = HASH_TEXT;
    }
  }

  /** A digest as its 32 bytes (as the mirror keeps it): not turned into digits and back. */
  writeBytes(row: number, digest: Buffer): void {
    this.text.delete(row);
    digest.copy(this.bytes, row * 32);
    this.kind[row] = HASH_BYTES;
  }

  read(row: number): string | null {
    switch (this.kind[row]) {
      case HASH_BYTES:
        return this.bytes.toString('hex', row * 32, row * 32 + 32);
      case HASH_TEXT:
        return this.text.get(row)!;
      default:
        return null;
    }
  }

  release(row: number): void {
    this.text.delete(row);
    this.kind[row] = NO_HASH;
  }
}

export const lastSegment = (path: RelPath) => path.slice(path.lastIndexOf('/') + 1);

