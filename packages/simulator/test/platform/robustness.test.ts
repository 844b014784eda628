// Hostile input at every route of the operation table: random and malformed bodies, odd content types,
// bad credentials, every method, long and badly encoded paths, huge headers, broken framing. Each
// answer must be a well-formed error (the service's envelope, the token endpoint's OAuth format or the
// gateway's 429 body) with a unique id, and the server must keep serving.
// @needs minutes
import {
  ErrorEnvelope,
  OAuthErrorResponse,
  OPERATIONS,
  RateLimitBody,
  GRANT_ENDPOINT_PATH,
  type Operation,
} from '@selling-kit/api-client/core';
import { startSimulator, DEMO, type RunningSimulator } from '../../src/index.ts';
import { SeededRandom } from '../../src/platform/random.ts';
import { call, rawHttp } from '../helpers.ts';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({
    demo: true,
    config: { fetchPictures: false, rateLimitsEnabled: false, seed: 99 },
  });
});
afterAll(() => sim.close());

const SAMPLE: Record<string, string> = {
  sku: DEMO.skus[0],
  productId: '7000001',
  slug: 'some-slug',
  purchase_id: '434000000001',
  parcel_id: 'parcel-1',
  address_id: String(DEMO.addressId),
  webhook_id: 'wh_nope',
};

const HOSTILE_SEGMENTS = [
  'a'.repeat(600),
  '%ZZ',
  '%E0%A4%A',
  '%00',
  '..%2F..%2Fetc%2Fpasswd',
  '%F0%9F%98%80%E2%80%AE',
  encodeURIComponent("' OR 1=1 --"),
  '-1',
  '1e309',
  '9'.repeat(40),
  '%20',
];

function fill(template: string, value?: string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => value ?? SAMPLE[name] ?? 'x');
}

const rnd = new SeededRandom(20260101);
const FIELD_NAMES = [
  'sku',
  'quantity',
  'price_amount',
  'pictures',
  'description',
  'brand_name',
  'department',
  'product_type',
  'offer_value',
  'items_refund_amount',
  'url',
  'event_types',
  'grant_type',
  '__proto__',
  'constructor',
];

function randomValue(depth: number): unknown {
  switch (rnd.int(0, depth > 3 ? 4 : 7)) {
    case 0:
      return null;
    case 1:
      return rnd.int(-1e9, 1e9) / (rnd.next() < 0.5 ? 1 : 7);
    case 2:
      return rnd.next() < 0.5;
    case 3:
      return String.fromCharCode(...Array.from({ length: rnd.int(0, 40) }, () => rnd.int(0, 0xffff)));
    case 4:
      return 'x'.repeat(rnd.int(0, 5000));
    case 5:
      return Array.from({ length: rnd.int(0, 10) }, () => randomValue(depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = rnd.int(0, 8); i > 0; i--)
        o[FIELD_NAMES[rnd.int(0, FIELD_NAMES.length - 1)]!] = randomValue(depth + 1);
      return o;
    }
  }
}

function randomBytes(n: number): Buffer {
  return Buffer.from(Array.from({ length: n }, () => rnd.int(0, 255)));
}

interface Body {
  name: string;
  body: string | Buffer;
  type?: string;
}

function hostileBodies(): Body[] {
  const bodies: Body[] = [
    { name: 'truncated json', body: '{"sku": "A", "quantity":', type: 'application/json' },
    { name: 'json null', body: 'null', type: 'application/json' },
    { name: 'json array', body: '[1,2,3]', type: 'application/json' },
    { name: 'json string', body: '"hello"', type: 'application/json' },
    { name: 'json number', body: '1e400', type: 'application/json' },
    { name: 'deep nesting', body: '['.repeat(50_000) + ']'.repeat(50_000), type: 'application/json' },
    { name: 'proto pollution', body: '{"__proto__":{"admin":true},"quantity":1}', type: 'application/json' },
    {
      name: 'constructor pollution',
      body: '{"constructor":{"prototype":{"x":1}}}',
      type: 'application/json',
    },
    {
      name: 'wrong types',
      body: JSON.stringify({ quantity: 'many', pictures: 'x', price_amount: 12 }),
      type: 'application/json',
    },
    { name: 'empty object', body: '{}', type: 'application/json' },
    { name: 'utf-16 declared', body: '{"a":1}', type: 'application/json; charset=utf-16' },
    {
      name: 'invalid utf-8',
      body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      type: 'application/json',
    },
    { name: 'xml', body: '<?xml version="1.0"?><product/>', type: 'application/xml' },
    { name: 'text', body: 'quantity=1', type: 'text/plain' },
    {
      name: 'form on json route',
      body: 'quantity=1&quantity=2&__proto__=x',
      type: 'application/x-www-form-urlencoded',
    },
    {
      name: 'multipart garbage',
      body: '--x\r\nContent-Disposition: form-data\r\n\r\n--',
      type: 'multipart/form-data; boundary=x',
    },
    { name: 'no content type', body: '{"a":1}' },
    { name: 'oversize', body: '{"a":"' + 'x'.repeat(1024 * 1024 + 10) + '"}', type: 'application/json' },
  ];
  for (let i = 0; i < 3; i++) {
    bodies.push({ name: `random json ${i}`, body: JSON.stringify(randomValue(0)), type: 'application/json' });
    bodies.push({ name: `random bytes ${i}`, body: randomBytes(rnd.int(1, 2000)), type: 'application/json' });
  }
  return bodies;
}

const AUTHS: [string, Record<string, string>][] = [
  ['no auth', {}],
  ['valid key', { authorization: `Bearer ${DEMO.apiKey}` }],
  ['garbage bearer', { authorization: 'Bearer !!!' }],
  ['basic', { authorization: 'Basic Zm9vOmJhcg==' }],
  ['long bearer', { authorization: `Bearer pak_${'x'.repeat(20_000)}` }],
];

interface Answer {
  label: string;
  path: string;
  method: string;
  status: number;
  text: string;
  /** The request was not even valid HTTP: the server cannot know its path, so the envelope is right. */
  unparseable?: boolean;
}

const problems: string[] = [];
const serverErrors: string[] = [];
const ids = new Set<string>();
let answers = 0;

/** Checks one answer; collects problems instead of throwing so one run reports them all. */
function check(a: Answer): void {
  answers++;
  if (a.status >= 500) serverErrors.push(`${a.label}: ${a.status} ${a.text.slice(0, 200)}`);
  if (a.status < 400 || a.method === 'HEAD') return;
  let body: { id?: unknown };
  try {
    body = JSON.parse(a.text);
  } catch {
    problems.push(`${a.label}: ${a.status} with a non-JSON body ${JSON.stringify(a.text.slice(0, 120))}`);
    return;
  }
  const tokenPath = a.path.split('?')[0] === GRANT_ENDPOINT_PATH && !a.unparseable;
  const schema = tokenPath ? OAuthErrorResponse : a.status === 429 ? RateLimitBody : ErrorEnvelope;
  if (!schema.safeParse(body).success || typeof body.id !== 'string') {
    problems.push(`${a.label}: ${a.status} malformed error ${a.text.slice(0, 200)}`);
    return;
  }
  if (ids.has(body.id)) problems.push(`${a.label}: error id ${body.id} repeated`);
  ids.add(body.id);
}

async function send(
  label: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<void> {
  try {
    const res = await fetch(sim.url + path, {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : body,
    });
    check({ label, path, method, status: res.status, text: await res.text() });
  } catch (e) {
    problems.push(
      `${label}: request failed: ${(e as Error).message} ${(e as { cause?: Error }).cause?.message ?? ''}`,
    );
  }
}

async function pool(tasks: (() => Promise<void>)[], width = 16): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) await tasks[next++]!();
    }),
  );
}

function casesFor(op: Operation): (() => Promise<void>)[] {
  const tasks: (() => Promise<void>)[] = [];
  const path = fill(op.path);
  const id = `${op.method} ${op.path}`;
  for (const [authName, auth] of AUTHS) {
    for (const b of hostileBodies()) {
      if (authName !== 'valid key' && authName !== 'no auth' && !b.name.startsWith('truncated')) continue;
      const headers = { ...auth, ...(b.type ? { 'content-type': b.type } : {}) };
      tasks.push(() => send(`${id} [${authName}] body=${b.name}`, op.method, path, headers, b.body));
    }
    if (op.path.includes('{')) {
      for (const seg of HOSTILE_SEGMENTS) {
        const p = fill(op.path, seg);
        tasks.push(() => send(`${id} [${authName}] path=${p.slice(0, 80)}`, op.method, p, auth));
      }
    }
    tasks.push(() =>
      send(`${id} [${authName}] long query`, op.method, `${path}?q=${'z'.repeat(5000)}`, auth),
    );
    tasks.push(() =>
      send(
        `${id} [${authName}] odd query`,
        op.method,
        `${path}?limit=-1&limit=abc&sort_by[]=x&__proto__[a]=1&cursor=%ZZ&state=%00`,
        auth,
      ),
    );
  }
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']) {
    tasks.push(() =>
      send(`${id} as ${method}`, method, path, { authorization: `Bearer ${DEMO.apiKey}` }, '{}'),
    );
  }
  tasks.push(() =>
    send(`${id} huge header`, op.method, path, {
      authorization: `Bearer ${DEMO.apiKey}`,
      'x-big': 'h'.repeat(100_000),
    }),
  );
  tasks.push(() =>
    send(`${id} double slashes`, op.method, path.replace(/\//g, '//'), {
      authorization: `Bearer ${DEMO.apiKey}`,
    }),
  );
  return tasks;
}

/** Minimal HTTP/1.1 response parser for raw-socket answers (content-length or chunked). */
function parseRaw(raw: string): { status: number; text: string } | undefined {
  const head = raw.indexOf('\r\n\r\n');
  if (head === -1) return undefined;
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1]);
  const headers = raw.slice(0, head).toLowerCase();
  let text = raw.slice(head + 4);
  const length = /content-length: (\d+)/.exec(headers)?.[1];
  if (length !== undefined) text = text.slice(0, Number(length));
  else if (headers.includes('transfer-encoding: chunked')) {
    let out = '';
    let rest = text;
    for (;;) {
      const nl = rest.indexOf('\r\n');
      const size = parseInt(rest.slice(0, nl), 16);
      if (!size) break;
      out += rest.slice(nl + 2, nl + 2 + size);
      rest = rest.slice(nl + 2 + size + 2);
    }
    text = out;
  }
  return { status, text: Buffer.from(text, 'latin1').toString('utf8') };
}

async function sendRaw(
  label: string,
  path: string,
  method: string,
  payload: string | Buffer,
  unparseable = false,
): Promise<void> {
  const raw = await rawHttp(sim.url, payload);
  const parsed = parseRaw(raw);
  if (!parsed) {
    problems.push(`${label}: no HTTP answer (${JSON.stringify(raw.slice(0, 80))})`);
    return;
  }
  check({ label, path, method, unparseable, ...parsed });
}

function rawCasesFor(op: Operation): (() => Promise<void>)[] {
  const path = fill(op.path);
  const id = `raw ${op.method} ${op.path}`;
  const auth = `Authorization: Bearer ${DEMO.apiKey}\r\n`;
  const req = (line: string, headers: string, body = '') =>
    Buffer.from(`${line}\r\nHost: x\r\n${headers}Connection: close\r\n\r\n${body}`, 'latin1');
  const m = op.method;
  const line = `${m} ${path} HTTP/1.1`;
  // [name, method, payload, unparseable]
  const cases: [string, string, Buffer, boolean][] = [
    ['invalid method', 'FOO', req(`FOO ${path} HTTP/1.1`, auth), true],
    ['NUL in path', m, req(`${m} ${path}\x00x HTTP/1.1`, auth), true],
    ['control char in header', m, req(line, `${auth}X-A: a\x01b\r\n`), true],
    ['latin-1 header value', m, req(line, `${auth}X-A: caf\xe9\xff\r\n`), false],
    ['bad content-length', m, req(line, `${auth}Content-Length: abc\r\n`, '{}'), true],
    [
      'content-length and chunked',
      m,
      req(line, `${auth}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n`, '{}'),
      true,
    ],
    [
      'broken chunk',
      m,
      req(
        line,
        `${auth}Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n`,
        'zz\r\n{}\r\n0\r\n\r\n',
      ),
      true,
    ],
    ['head over 1 MiB', m, req(line, `${auth}X-Big: ${'b'.repeat(1_100_000)}\r\n`), true],
    ['URL of 100 KB', m, req(`${m} ${path}${'u'.repeat(100_000)} HTTP/1.1`, auth), false],
    ['HTTP/1.0', m, Buffer.from(`${m} ${path} HTTP/1.0\r\n${auth}\r\n`, 'latin1'), false],
    ['no Host', m, Buffer.from(`${line}\r\n${auth}Connection: close\r\n\r\n`, 'latin1'), false],
    [
      'websocket upgrade',
      'GET',
      req(`GET ${path} HTTP/1.1`, `${auth}Upgrade: websocket\r\nConnection: Upgrade\r\n`),
      false,
    ],
  ];
  return cases.map(
    ([name, method, payload, unparseable]) =>
      () =>
        sendRaw(`${id} ${name}`, name === 'URL of 100 KB' ? `${path}u` : path, method, payload, unparseable),
  );
}

test('every route answers hostile requests with well-formed errors, each with a unique id', async () => {
  const tasks = OPERATIONS.flatMap(casesFor);
  tasks.push(() =>
    sendRaw('CONNECT', '/', 'CONNECT', Buffer.from('CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n')),
  );
  await pool(tasks);
  await pool(OPERATIONS.flatMap(rawCasesFor), 8);
  expect(problems).toEqual([]);
  expect(answers).toBeGreaterThan(OPERATIONS.length * 50);
  expect(ids.size).toBeGreaterThan(OPERATIONS.length * 20);
}, 60_000);

test('hostile input never produces a server error (5xx)', () => {
  expect(serverErrors).toEqual([]);
});

test('the server still serves after the barrage', async () => {
  expect((await call(sim.url, 'GET', '/status')).body).toEqual({ status: 'OK' });
  const token = await call(sim.url, 'POST', GRANT_ENDPOINT_PATH, 'grant_type=refresh_token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(token.status).toBe(400);
  expect(token.body.error).toBe('invalid_request');
  const oversize = await call(sim.url, 'POST', '/api/v1/products/', 'x'.repeat(2 * 1024 * 1024), {
    token: DEMO.apiKey,
  });
  expect(oversize.status).toBe(413);
  const malformed = await call(sim.url, 'POST', '/api/v1/pricing/inspiration/', '{"a":', {
    token: DEMO.apiKey,
  });
  expect(malformed.status).toBe(400);
  expect(malformed.body.errors[0].code).toBe('bad-request');
  const notJson = await call(sim.url, 'POST', '/api/v1/pricing/inspiration/', 'hello', {
    token: DEMO.apiKey,
    headers: { 'content-type': 'text/plain' },
  });
  expect([400, 404]).toContain(notJson.status); // 404 while the pricing handler is not registered
  expect(
    (
      await call(sim.url, 'GET', `/api/v1/products/by-sku/${'s'.repeat(5000)}/`, undefined, {
        token: DEMO.apiKey,
      })
    ).status,
  ).toBe(414);
});
