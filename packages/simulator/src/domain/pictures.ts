// Picture ingestion: every URL is fetched at request time (spec: "each URL must be live"), its bytes
// sniffed (JPEG, PNG, WebP only), transparency refused, and its size read from the image header.
import { apiError } from '../errors.ts';
import type { SimulatorConfig } from '../config.ts';

export interface IngestedPicture {
  url: string;
  width: number;
  height: number;
}

export interface ImageInfo {
  format: 'jpeg' | 'png' | 'webp';
  width: number;
  height: number;
  transparent: boolean;
}

/** SPEC GAP (size limit): largest picture the simulator downloads; larger → ingest_picture_error. */
const MAX_PICTURE_BYTES = 10 * 1024 * 1024;
/** SPEC GAP: width and height reported when pictures are not fetched (config.fetchPictures = false). */
const UNFETCHED_SIZE = 1280;

/** Reads format, size and transparency from an image's first bytes; null when not JPEG/PNG/WebP. */
export function sniffImage(b: Uint8Array): ImageInfo | null {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47)
    return sniffPng(b, view);
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return sniffJpeg(b, view);
  if (b.length >= 30 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return sniffWebp(b, view);
  return null;
}

function ascii(b: Uint8Array, at: number, len: number): string {
  return String.fromCharCode(...b.subarray(at, at + len));
}

function sniffPng(b: Uint8Array, view: DataView): ImageInfo {
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  const colourType = b[25];
  // Colour types 4 (grey + alpha) and 6 (RGBA) carry alpha; a tRNS chunk adds transparency to others.
  let transparent = colourType === 4 || colourType === 6;
  for (let at = 8; !transparent && at + 8 <= b.length;) {
    const length = view.getUint32(at);
    const type = ascii(b, at + 4, 4);
    if (type === 'tRNS') transparent = true;
    if (type === 'IDAT' || type === 'IEND') break;
    at += 12 + length;
  }
  return { format: 'png', width, height, transparent };
}

function sniffJpeg(b: Uint8Array, view: DataView): ImageInfo | null {
  for (let at = 2; at + 9 < b.length;) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1]!;
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return {
        format: 'jpeg',
        height: view.getUint16(at + 5),
        width: view.getUint16(at + 7),
        transparent: false,
      };
    }
    at += 2 + view.getUint16(at + 2);
  }
  return { format: 'jpeg', width: 0, height: 0, transparent: false };
}

function sniffWebp(b: Uint8Array, view: DataView): ImageInfo | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8X') {
    const flags = b[20]!;
    const width = 1 + (b[24]! | (b[25]! << 8) | (b[26]! << 16));
    const height = 1 + (b[27]! | (b[28]! << 8) | (b[29]! << 16));
    return { format: 'webp', width, height, transparent: (flags & 0x10) !== 0 };
  }
  if (chunk === 'VP8L') {
    // Signature byte 0x2f, then 14 bits width-1, 14 bits height-1, 1 bit alpha_is_used.
    const bits = view.getUint32(21, true);
    return {
      format: 'webp',
      width: (bits & 0x3fff) + 1,
      height: ((bits >>> 14) & 0x3fff) + 1,
      transparent: ((bits >>> 28) & 1) === 1,
    };
  }
  if (chunk === 'VP8 ') {
    return {
      format: 'webp',
      width: view.getUint16(26, true) & 0x3fff,
      height: view.getUint16(28, true) & 0x3fff,
      transparent: false,
    };
  }
  return null;
}

function ingestError(url: string, why: string) {
  return apiError('ingest_picture_error', `picture ${url} could not be ingested: ${why}`);
}

function fetchFailure(url: string, e: unknown, config: SimulatorConfig) {
  const reason =
    (e as Error)?.name === 'TimeoutError'
      ? `no answer within ${config.pictureFetchTimeoutMs} ms`
      : 'the URL is not reachable';
  return ingestError(url, reason);
}

async function ingestOne(url: string, config: SimulatorConfig): Promise<IngestedPicture> {
  if (!/^https?:\/\//i.test(url)) throw ingestError(url, 'only http and https URLs can be downloaded');
  let res: Response;
  try {
    // The timeout covers the whole download, headers and body.
    res = await fetch(url, { signal: AbortSignal.timeout(config.pictureFetchTimeoutMs), redirect: 'follow' });
  } catch (e) {
    throw fetchFailure(url, e, config);
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw ingestError(url, `the URL answered HTTP ${res.status}`);
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw fetchFailure(url, e, config);
  }
  if (bytes.length > MAX_PICTURE_BYTES) throw ingestError(url, `larger than ${MAX_PICTURE_BYTES} bytes`);
  const info = sniffImage(bytes);
  if (!info) throw ingestError(url, 'not a JPEG, PNG or WebP image');
  if (info.transparent)
    throw ingestError(url, `transparent ${info.format.toUpperCase()} images are not supported`);
  return { url, width: info.width, height: info.height };
}

/** Fetches every picture in parallel; the first failure (in list order) is the error answered. */
export async function ingestPictures(
  urls: string[],
  config: SimulatorConfig,
  skipFetch = false,
): Promise<IngestedPicture[]> {
  if (skipFetch || !config.fetchPictures)
    return urls.map((url) => ({ url, width: UNFETCHED_SIZE, height: UNFETCHED_SIZE }));
  const settled = await Promise.allSettled(urls.map((url) => ingestOne(url, config)));
  return settled.map((s) => {
    if (s.status === 'rejected') throw s.reason;
    return s.value;
  });
}
