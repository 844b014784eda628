// Small pictures the simulator serves itself at /demo-assets/<name>.png, so demo listings (and tests)
// have picture URLs that are live at request time. Plain RGB PNGs (no alpha: the spec rejects
// transparency), generated in memory at start-up.
import { crc32, deflateSync } from 'node:zlib';

export const DEMO_ASSET_PREFIX = '/demo-assets/';

export interface Asset {
  contentType: string;
  body: Buffer;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData) >>> 0);
  return Buffer.concat([len, typeAndData, crc]);
}

/** An RGB PNG of `size`×`size`: a background colour with a centred square of a second colour. */
export function makePng(size: number, bg: [number, number, number], fg: [number, number, number]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour, no alpha
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  const row = size * 3 + 1;
  const raw = Buffer.alloc(row * size);
  const lo = Math.floor(size / 4);
  const hi = size - lo;
  for (let y = 0; y < size; y++) {
    raw[y * row] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      const c = x >= lo && x < hi && y >= lo && y < hi ? fg : bg;
      const o = y * row + 1 + x * 3;
      raw[o] = c[0];
      raw[o + 1] = c[1];
      raw[o + 2] = c[2];
    }
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** `#rrggbb` → [r, g, b]. */
function rgb(hex: string): [number, number, number] {
  return [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)) as [number, number, number];
}

/** name (e.g. `tee-black.png`) → PNG. 480×480 each. */
export function demoAssets(): Map<string, Asset> {
  // Background and foreground colour of each picture.
  const palette: Record<string, [background: string, foreground: string]> = {
    'tee-black.png': ['#1e1e1e', '#e6e6e6'],
    'jeans-blue.png': ['#284682', '#c8aa5a'],
    'jacket-green.png': ['#32643c', '#f0ebdc'],
    'dress-red.png': ['#aa1e28', '#faf0f0'],
  };
  const assets = new Map<string, Asset>();
  for (const [name, [bg, fg]] of Object.entries(palette)) {
    assets.set(name, { contentType: 'image/png', body: makePng(480, rgb(bg), rgb(fg)) });
  }
  return assets;
}
