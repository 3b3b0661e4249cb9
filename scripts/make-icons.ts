/**
 * Draws the tray icons (one per state, 16 px and 32 px for @2x screens) and the app icon as PNG, with no image
 * library: shapes as distance functions, 4×4 supersampling, zlib for the PNG. Run `tsx scripts/make-icons.ts`; the
 * PNGs are committed under main/app/icons.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

type Rgba = [number, number, number, number];
/** Coverage test in a unit square (0..1 both ways, y down). */
type Shape = (x: number, y: number) => boolean;
interface Layer {
  shape: Shape;
  color: Rgba;
}

const disc = (cx: number, cy: number, r: number): Shape => (x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
const ring = (cx: number, cy: number, r1: number, r2: number, from = 0, to = 360): Shape => (x, y) => {
  const d2 = (x - cx) ** 2 + (y - cy) ** 2;
  if (d2 < r1 * r1 || d2 > r2 * r2) return false;
  let a = (Math.atan2(y - cy, x - cx) * 180) / Math.PI;
  if (a < 0) a += 360;
  return from <= to ? a >= from && a <= to : a >= from || a <= to;
};
const rect = (x0: number, y0: number, x1: number, y1: number): Shape => (x, y) => x >= x0 && x <= x1 && y >= y0 && y <= y1;
const segment = (ax: number, ay: number, bx: number, by: number, half: number): Shape => (x, y) => {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
  return (x - ax - t * dx) ** 2 + (y - ay - t * dy) ** 2 <= half * half;
};
const triangle = (p: [number, number], q: [number, number], r: [number, number]): Shape => (x, y) => {
  const side = (a: [number, number], b: [number, number]) => (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
  const s1 = side(p, q);
  const s2 = side(q, r);
  const s3 = side(r, p);
  return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
};
const roundedSquare = (r: number): Shape => (x, y) => {
  const cx = Math.min(Math.max(x, r), 1 - r);
  const cy = Math.min(Math.max(y, r), 1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
};

const WHITE: Rgba = [255, 255, 255, 255];
const COLORS = {
  idle: [34, 139, 76, 255] as Rgba,
  syncing: [31, 95, 191, 255] as Rgba,
  paused: [110, 117, 128, 255] as Rgba,
  error: [196, 43, 28, 255] as Rgba,
  offline: [150, 110, 20, 255] as Rgba,
};

const syncArrows = (scale = 1): Layer[] => {
  const c = 0.5;
  const r1 = 0.2 * scale;
  const r2 = 0.29 * scale;
  return [
    { shape: ring(c, c, r1, r2, 200, 340), color: WHITE },
    { shape: ring(c, c, r1, r2, 20, 160), color: WHITE },
    { shape: triangle([c + 0.345 * scale, c - 0.02], [c + 0.145 * scale, c - 0.02], [c + 0.245 * scale, c + 0.11 * scale]), color: WHITE },
    { shape: triangle([c - 0.345 * scale, c + 0.02], [c - 0.145 * scale, c + 0.02], [c - 0.245 * scale, c - 0.11 * scale]), color: WHITE },
  ];
};

export const TRAY_ICONS: Record<keyof typeof COLORS, Layer[]> = {
  idle: [
    { shape: disc(0.5, 0.5, 0.47), color: COLORS.idle },
    { shape: segment(0.28, 0.52, 0.44, 0.68, 0.07), color: WHITE },
    { shape: segment(0.44, 0.68, 0.74, 0.34, 0.07), color: WHITE },
  ],
  syncing: [{ shape: disc(0.5, 0.5, 0.47), color: COLORS.syncing }, ...syncArrows()],
  paused: [
    { shape: disc(0.5, 0.5, 0.47), color: COLORS.paused },
    { shape: rect(0.33, 0.28, 0.44, 0.72), color: WHITE },
    { shape: rect(0.56, 0.28, 0.67, 0.72), color: WHITE },
  ],
  error: [
    { shape: disc(0.5, 0.5, 0.47), color: COLORS.error },
    { shape: segment(0.5, 0.24, 0.5, 0.56, 0.075), color: WHITE },
    { shape: disc(0.5, 0.75, 0.08), color: WHITE },
  ],
  offline: [
    { shape: disc(0.5, 0.5, 0.47), color: COLORS.offline },
    { shape: ring(0.5, 0.5, 0.2, 0.29), color: WHITE },
    { shape: segment(0.27, 0.73, 0.73, 0.27, 0.065), color: WHITE },
  ],
};

export const APP_ICON: Layer[] = [{ shape: roundedSquare(0.2), color: COLORS.syncing }, ...syncArrows(1.25)];

/** Straight-alpha RGBA pixels of the layers, painted in order. */
export function rasterize(layers: readonly Layer[], size: number, samples = 4): Uint8Array {
  const out = new Uint8Array(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = (px + (sx + 0.5) / samples) / size;
          const y = (py + (sy + 0.5) / samples) / size;
          let color: Rgba | null = null;
          for (const layer of layers) if (layer.shape(x, y)) color = layer.color;
          if (color) {
            r += color[0];
            g += color[1];
            b += color[2];
            a += color[3];
          }
        }
      }
      const n = samples * samples;
      const covered = a / 255;
      const i = (py * size + px) * 4;
      out[i] = covered > 0 ? Math.round(r / covered) : 0;
      out[i + 1] = covered > 0 ? Math.round(g / covered) : 0;
      out[i + 2] = covered > 0 ? Math.round(b / covered) : 0;
      out[i + 3] = Math.round(a / n);
    }
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const body = Buffer.concat([head.subarray(4), Buffer.from(data)]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([head.subarray(0, 4), body, crc]);
}

export function encodePng(pixels: Uint8Array, size: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    Buffer.from(pixels.buffer, pixels.byteOffset + y * size * 4, size * 4).copy(raw, y * (size * 4 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

export function writeIcons(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const [state, layers] of Object.entries(TRAY_ICONS)) {
    for (const [suffix, size] of [
      ['', 16],
      ['@2x', 32],
    ] as const) {
      const file = join(dir, `tray-${state}${suffix}.png`);
      writeFileSync(file, encodePng(rasterize(layers, size), size));
      written.push(file);
    }
  }
  const app = join(dir, 'app.png');
  writeFileSync(app, encodePng(rasterize(APP_ICON, 512, 2), 512));
  written.push(app);
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'main', 'app', 'icons');
  for (const file of writeIcons(dir)) console.log(file);
}
