// Attack (L1): a base URL in cleartext to a remote host would send API keys, OAuth client secrets, codes
// and tokens over the network unencrypted. The client refuses it at construction, before any request;
// plain http stays allowed to loopback hosts (the local simulator).
import { BaseUrlError, checkBaseUrl } from '../../src/core/index.ts';
import { SellingClient } from '../../src/client/index.ts';
import type { Transport } from '../../src/core/index.ts';

const sleep = async () => undefined;

const spyTransport = () => {
  const calls: string[] = [];
  const transport: Transport = {
    send: async (req) => {
      calls.push(req.url);
      return { status: 200, headers: {}, body: '{}' };
    },
  };
  return { calls, transport };
};

describe('attack: cleartext base URL', () => {
  it.each([
    'http://partnerapi.example.com',
    'http://127.0.0.1.evil.example',
    'http://localhost.evil.example:4010',
    'http://10.0.0.5:4010',
    'ftp://127.0.0.1',
  ])('refuses %s at client construction, nothing sent', (baseUrl) => {
    const { calls, transport } = spyTransport();
    let caught: unknown;
    try {
      new SellingClient({ baseUrl, apiKey: 'pak_secret_value_1234', transport, sleep });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(BaseUrlError);
    expect((caught as BaseUrlError).code).toBe('insecure_base_url');
    expect((caught as Error).message).toMatch(/must use https: \(plain http only to a loopback host/);
    expect(calls).toHaveLength(0);
  });

  it('never echoes credentials in the URL back in its message', () => {
    expect(() => checkBaseUrl('http://user:hunter2@api.example.com')).toThrow(BaseUrlError);
    try {
      checkBaseUrl('http://user:hunter2@api.example.com');
    } catch (e) {
      expect((e as Error).message).not.toContain('hunter2');
    }
  });

  it('refuses what is not a URL', () => {
    expect(() => checkBaseUrl('not a url')).toThrow(expect.objectContaining({ code: 'bad_base_url' }));
  });

  it.each([
    'https://partnerapi.example.com',
    'http://127.0.0.1:4010',
    'http://127.1.2.3:4010',
    'http://localhost:4010',
    'http://[::1]:4010',
  ])('accepts %s', (baseUrl) => {
    expect(checkBaseUrl(baseUrl)).toBe(baseUrl);
    expect(
      new SellingClient({ baseUrl, apiKey: 'k', transport: spyTransport().transport, sleep }).baseUrl,
    ).toBe(baseUrl);
  });
});

describe("the operator's plain-http host list (a private-network simulator)", () => {
  it('lets exactly the listed host name through over http, and nothing else', () => {
    expect(checkBaseUrl('http://simulator:4010', ['simulator'])).toBe('http://simulator:4010');
    for (const other of ['http://simulator.evil.example:4010', 'http://10.0.0.5:4010', 'http://sim:4010'])
      expect(() => checkBaseUrl(other, ['simulator'])).toThrow(BaseUrlError);
    expect(() => checkBaseUrl('http://simulator:4010')).toThrow(/must use https:/);
    const { calls, transport } = spyTransport();
    const client = new SellingClient({
      baseUrl: 'http://simulator:4010',
      plainHttpHosts: ['simulator'],
      apiKey: 'pak_secret_value_1234',
      transport,
      sleep,
    });
    expect(client.baseUrl).toBe('http://simulator:4010');
    expect(calls).toHaveLength(0);
  });
});
