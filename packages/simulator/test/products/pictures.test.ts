// Pictures are fetched at request time from a loopback server serving real image bytes.
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { startTestShop, type CallResult, type TestShop } from '../helpers.ts';
import { sniffImage } from '../../src/domain/pictures.ts';
import { listing, codeOf } from '../fixtures.ts';

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** A real PNG: colour type 2 (RGB), 4 (grey + alpha) or 6 (RGBA), optionally with a tRNS chunk. */
function png(width: number, height: number, colourType: 2 | 4 | 6, trns = false): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = colourType;
  const row = 1 + width * { 2: 3, 4: 2, 6: 4 }[colourType];
  const raw = Buffer.alloc(row * height);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    ...(trns ? [chunk('tRNS', Buffer.from([0, 0, 0, 0, 0, 0]))] : []),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
/** A baseline JPEG header (SOI, APP0, SOF0 with the size); enough for format and size sniffing. */
function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
    0x00,
  ]);
  const sof = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x03,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]);
}
/** WebP VP8X container with or without the alpha flag. */
function webpVp8x(width: number, height: number, alpha: boolean): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x[0] = alpha ? 0x10 : 0;
  vp8x.writeUIntLE(width - 1, 4, 3);
  vp8x.writeUIntLE(height - 1, 7, 3);
  const body = Buffer.concat([Buffer.from('WEBP'), Buffer.from('VP8X'), Buffer.from([10, 0, 0, 0]), vp8x]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return Buffer.concat([Buffer.from('RIFF'), size, body]);
}

/** Real encoder output (Pillow), hard-coded: a 12×7 baseline JPEG and 9×5 WebPs in each flavour. */
const REAL_JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABsSFBcUERsXFhceHBsgKEIrKCUlKFE6PTBCYFVlZF9VXVtqeJmBanGQc1tdhbWGkJ6jq62rZ4C8ybqmx5moq6T/2wBDARweHigjKE4rK06kbl1upKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKT/wAARCAAHAAwDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAT/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABAX/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwCMAdXf/9k=',
  'base64',
);
const WEBP_LOSSY = Buffer.from(
  'UklGRjIAAABXRUJQVlA4ICYAAACwAQCdASoJAAUAB0CWJaACdLoABKoAAP4THr5lnC/n8bzea2OwAA==',
  'base64',
);
const WEBP_LOSSLESS = Buffer.from('UklGRiIAAABXRUJQVlA4TBYAAAAvCAABAAdQ5CpUof8BgCD8f3uI6H8a', 'base64');
const WEBP_LOSSLESS_ALPHA = Buffer.from('UklGRiIAAABXRUJQVlA4TBYAAAAvCAABEAdQ5CpUoYABgCD8f3uI6H8a', 'base64');
const WEBP_LOSSY_ALPHA = Buffer.from(
  'UklGRlYAAABXRUJQVlA4WAoAAAAQAAAACAAABAAAQUxQSAoAAAABB1DAiAhERP8DVlA4ICYAAACwAQCdASoJAAUAB0CWJaACdLoABKoAAP4THr5lnC/n8bzea2OwAA==',
  'base64',
);

const files: Record<string, [string, Buffer]> = {
  '/real.jpg': ['image/jpeg', REAL_JPEG],
  '/lossy.webp': ['image/webp', WEBP_LOSSY],
  '/lossless.webp': ['image/webp', WEBP_LOSSLESS],
  '/lossless-alpha.webp': ['image/webp', WEBP_LOSSLESS_ALPHA],
  '/lossy-alpha.webp': ['image/webp', WEBP_LOSSY_ALPHA],
  '/grey-alpha.png': ['image/png', png(4, 4, 4)],
  '/truncated.png': ['image/png', png(4, 4, 2).subarray(0, 20)],
  '/mislabelled.jpg': ['image/jpeg', png(5, 6, 2)],
  '/ok.png': ['image/png', png(40, 30, 2)],
  '/alpha.png': ['image/png', png(10, 10, 6)],
  '/trns.png': ['image/png', png(10, 10, 2, true)],
  '/ok.jpg': ['image/jpeg', jpeg(800, 600)],
  '/ok.webp': ['image/webp', webpVp8x(120, 90, false)],
  '/alpha.webp': ['image/webp', webpVp8x(120, 90, true)],
  '/page.html': ['text/html', Buffer.from('<html>not an image</html>')],
};

let shop: TestShop;
let images: http.Server;
const hanging: http.ServerResponse[] = [];
let base: string;
beforeAll(async () => {
  images = http.createServer((req, res) => {
    if (req.url === '/hang.jpg') return void hanging.push(res); // never answers
    if (req.url === '/slow-body.jpg') {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      res.write(REAL_JPEG.subarray(0, 10)); // headers and a few bytes, then nothing
      return void hanging.push(res);
    }
    if (req.url === '/error.jpg') return void res.writeHead(500).end('boom');
    const file = files[req.url ?? ''];
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
  await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  shop = await startTestShop({ config: { fetchPictures: true, pictureFetchTimeoutMs: 2000 } });
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  await shop.sim.close();
  await new Promise((r) => images.close(r));
});

let n = 0;
const create = (paths: string[]) =>
  shop.call(
    'POST',
    '/api/v1/products/',
    listing({
      sku: `PIC-${++n}`,
      pictures: paths.map((p) => ({ url: p.startsWith('http') ? p : base + p })),
    }),
  );

/** A create or update refused for a picture: 422 ingest_picture_error, naming `url` and saying `why`. */
function expectPictureRefused(res: CallResult, url: string, why: RegExp) {
  expect([res.status, codeOf(res)]).toEqual([422, 'ingest_picture_error']);
  expect(res.body.errors[0].message).toContain(url);
  expect(res.body.errors[0].message).toMatch(why);
}

describe('picture ingestion', () => {
  it('accepts JPEG, opaque PNG and WebP and reports their sizes', async () => {
    const res = await create(['/ok.jpg', '/ok.png', '/ok.webp']);
    expect(res.status).toBe(200);
    const product = (await shop.call('GET', `/api/v1/products/by-sku/PIC-${n}/`)).body;
    expect(product.pictures.map((p: { width: number; height: number }) => [p.width, p.height])).toEqual([
      [800, 600],
      [40, 30],
      [120, 90],
    ]);
  });
  it.each([
    ['/alpha.png', /transparent PNG/],
    ['/trns.png', /transparent PNG/],
    ['/alpha.webp', /transparent WEBP/],
    ['/page.html', /not a JPEG, PNG or WebP/],
    ['/missing.jpg', /HTTP 404/],
    // Real encoder output and every other failure.
    ['/lossless-alpha.webp', /transparent WEBP/],
    ['/lossy-alpha.webp', /transparent WEBP/],
    ['/grey-alpha.png', /transparent PNG/],
    ['/truncated.png', /not a JPEG, PNG or WebP/],
    ['/error.jpg', /HTTP 500/],
  ])(
    '%s → 422 ingest_picture_error naming the URL, alone or after an accepted picture',
    async (path, why) => {
      expectPictureRefused(await create([path]), base + path, why);
      expectPictureRefused(await create(['/ok.jpg', path]), base + path, why);
    },
  );
  it('a dead host → ingest_picture_error, and nothing is created', async () => {
    const dead = http.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/x.jpg`;
    await new Promise((r) => dead.close(r));
    const before = shop.seller.products.size;
    expectPictureRefused(await create([url]), url, /not reachable/);
    expect(shop.seller.products.size).toBe(before);
  });
  it('sniffImage reads VP8L alpha and rejects unknown bytes', () => {
    expect(sniffImage(Buffer.from('GIF89a....................'))).toBeNull();
    const vp8l = Buffer.concat([
      Buffer.from('RIFF'),
      Buffer.alloc(4),
      Buffer.from('WEBPVP8L'),
      Buffer.alloc(4),
      Buffer.from([0x2f]),
      Buffer.alloc(4),
      Buffer.alloc(10),
    ]);
    vp8l.writeUInt32LE((9 & 0x3fff) | ((4 & 0x3fff) << 14) | (1 << 28), 21);
    expect(sniffImage(vp8l)).toEqual({ format: 'webp', width: 10, height: 5, transparent: true });
  });
});

describe('picture ingestion: real encoder output and every failure', () => {
  it('a real JPEG and lossy / lossless opaque WebPs are accepted with their sizes', async () => {
    const res = await create(['/real.jpg', '/lossy.webp', '/lossless.webp']);
    expect(res.status).toBe(200);
    const p = (await shop.call('GET', `/api/v1/products/by-sku/PIC-${n}/`)).body;
    expect(p.pictures).toEqual([
      { url: `${base}/real.jpg`, width: 12, height: 7 },
      { url: `${base}/lossy.webp`, width: 9, height: 5 },
      { url: `${base}/lossless.webp`, width: 9, height: 5 },
    ]);
  });
  it('sniffImage reads the real files', () => {
    expect(sniffImage(REAL_JPEG)).toEqual({ format: 'jpeg', width: 12, height: 7, transparent: false });
    expect(sniffImage(WEBP_LOSSY_ALPHA)).toEqual({ format: 'webp', width: 9, height: 5, transparent: true });
    expect(sniffImage(WEBP_LOSSLESS_ALPHA)?.transparent).toBe(true);
    expect(sniffImage(WEBP_LOSSLESS)?.transparent).toBe(false);
  });
  it('the format comes from the bytes, not the extension or content type', async () => {
    expect((await create(['/mislabelled.jpg'])).status).toBe(200);
  });
  it.each(['/hang.jpg', '/slow-body.jpg'])(
    '%s: no complete answer within pictureFetchTimeoutMs → ingest_picture_error',
    async (path) => {
      shop.sim.config.pictureFetchTimeoutMs = 300;
      try {
        expectPictureRefused(await create([path]), base + path, /no answer within 300 ms/);
      } finally {
        shop.sim.config.pictureFetchTimeoutMs = 2000;
      }
    },
  );
  it('a URL that is not http(s) cannot be downloaded', async () => {
    const res = await shop.call(
      'POST',
      '/api/v1/products/',
      listing({ sku: `PIC-${++n}`, pictures: [{ url: 'ftp://127.0.0.1/x.jpg' }] }),
    );
    expect([res.status, codeOf(res)]).toEqual([422, 'ingest_picture_error']);
    expect(res.body.errors[0].message).toMatch(/ftp:\/\/127\.0\.0\.1\/x\.jpg.*only http and https/);
  });
  it('the first failing picture in list order is the one reported', async () => {
    const res = await create(['/ok.jpg', '/page.html', '/missing.jpg']);
    expect(res.body.errors[0].message).toContain(`${base}/page.html`);
  });
  it('PUT fetches the new pictures too; a failure leaves the listing unchanged', async () => {
    await create(['/ok.jpg']);
    const sku = `PIC-${n}`;
    const put = (paths: string[]) =>
      shop.call('PUT', `/api/v1/products/by-sku/${sku}/`, {
        ...listing({ pictures: paths.map((p) => ({ url: base + p })) }),
        sku: undefined,
        attributes: {},
      });
    const bad = await put(['/alpha.png']);
    expect([bad.status, codeOf(bad)]).toEqual([422, 'ingest_picture_error']);
    expect((await shop.call('GET', `/api/v1/products/by-sku/${sku}/`)).body.pictures).toEqual([
      { url: `${base}/ok.jpg`, width: 800, height: 600 },
    ]);
    expect((await put(['/ok.png', '/real.jpg'])).status).toBe(200);
    const pictures = (await shop.call('GET', `/api/v1/products/by-sku/${sku}/`)).body.pictures;
    expect(pictures.map((p: { width: number }) => p.width)).toEqual([40, 12]);
  });
  it('with fetchPictures off, any URL is accepted unchecked', async () => {
    shop.sim.config.fetchPictures = false;
    try {
      expect((await create(['/missing.jpg'])).status).toBe(200);
    } finally {
      shop.sim.config.fetchPictures = true;
    }
  });
});
