// Authenticated payloads without a server (D1): the MAC inside the seal, the worker's checks (worker and
// client signatures, retired and unknown keys, scopes, migration mode), the client credential string,
// namedShops, the client keyring file and the token store's own key.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { AesGcmCodec, deriveKey, keyringOf, tokenStoreKeys } from '../src/codec/codec.ts';
import * as contract from '../src/contract.ts';
import { namedShops, refusedInput, workflowIdScope } from '../src/contract.ts';
import {
  issueClientKey,
  readClientKeys,
  retireClientKey,
  watchedClientKeys,
} from '../src/auth/client-keys.ts';
import { formatClientCredential, macInput, parseClientCredential } from '../src/auth/payload-auth.ts';
import { clientCredentialFor } from '../src/auth/worker-auth.ts';
import { loadTokenStoreKey, tokenStoreKeyring } from '../src/auth/token-store-key.ts';
import { createFileTokenStore } from '../src/stores/token-store.ts';
import { jsonPayload as json, text, toWorkflow, utf8 } from './payloads.ts';

const dir = mkdtempSync(join(tmpdir(), 'sk-auth-codec-'));
const master = randomBytes(32);
const ring = keyringOf(master);
const keyring = join(dir, 'client-keys.json');
const warnings: string[] = [];
const worker = new AesGcmCodec(ring, {
  clientKeys: watchedClientKeys(keyring),
  warn: (m) => warnings.push(m),
});
const client = (id: string, shops: string[], sellers: string[] = []) =>
  AesGcmCodec.forClient(clientCredentialFor(ring, issueClientKey(keyring, { id, shops, sellers })));
/** What the worker hands workflow `reader` for `value` sealed by `codec` for workflow `to`. */
const seen = async (codec: AesGcmCodec, value: unknown, to = 'bulk:j1', reader = to) => {
  const [opened] = await worker.decode(await codec.encode([json(value)], toWorkflow(to)), toWorkflow(reader));
  return JSON.parse(text(opened!.data)) as unknown;
};

describe('the MAC inside the seal', () => {
  it('covers "skauth2", the writer id, the workflow it is for and the encoding (length-prefixed) and the data', () => {
    expect(macInput('ab', 'bulk:j', utf8('json/plain'), utf8('{}')).toString('hex')).toBe(
      Buffer.concat([
        Buffer.from('skauth2'),
        Buffer.from([0, 0, 0, 2]),
        Buffer.from('ab'),
        Buffer.from([0, 0, 0, 6]),
        Buffer.from('bulk:j'),
        Buffer.from([0, 0, 0, 10]),
        Buffer.from('json/plain'),
        Buffer.from('{}'),
      ]).toString('hex'),
    );
  });

  it("the worker's own payloads pass and come back without the auth fields", async () => {
    const [opened] = await worker.decode(await worker.encode([json({ shopId: 'any' })]));
    expect(Object.keys(opened!.metadata!)).toEqual(['encoding']);
    expect(JSON.parse(text(opened!.data))).toEqual({ shopId: 'any' });
    expect(refusedInput(await seen(worker, { shopId: 'any' }, 'bulk:j1/a'))).toBeUndefined();
  });

  it('a payload is read by the workflow it was written for only: copied into another, it is refused', async () => {
    // A worker-written child start (shop b's part of a job), copied by a client into a workflow of its own.
    expect(refusedInput(await seen(worker, { shopId: 'b' }, 'bulk:j1/b', 'bulk:mine'))).toEqual({
      code: 'misaddressed_input',
      message:
        'misaddressed job input refused: written for workflow "bulk:j1/b", read by "bulk:mine" (a payload copied from another workflow)',
    });
    // Another client's start input, copied the same way.
    const b = client('copied', ['b']);
    expect(refusedInput(await seen(b, { shopId: 'b' }, 'bulk:theirs', 'bulk:mine'))?.code).toBe(
      'misaddressed_input',
    );
    // Written for no workflow (no context): a client's is refused wherever it is read.
    const [unbound] = await worker.decode(await b.encode([json({ shopId: 'b' })]), toWorkflow('bulk:theirs'));
    expect(refusedInput(JSON.parse(text(unbound!.data)))?.code).toBe('misaddressed_input');
    // A schedule's action is sealed for the id it names; its runs append their start time.
    expect(
      refusedInput(await seen(b, { shopId: 'b' }, 'feed-sync:n', 'feed-sync:n-2026-11-26T06:00:00Z')),
    ).toBeUndefined();
    expect(refusedInput(await seen(b, { shopId: 'b' }, 'feed-sync:n', 'feed-sync:n-x'))?.code).toBe(
      'misaddressed_input',
    );
  });

  it("a workflow's id says who may address it: internal ones the worker only; shops and sellers in ids are scoped", async () => {
    const c = client('ids', ['a'], ['s1']);
    for (const id of ['lane:q:a:write', 'app-budget:q:app', 'shop-directory:q', 'job-retention:q'])
      expect(refusedInput(await seen(c, {}, id))).toEqual({
        code: 'internal_workflow',
        message: `client key ids may not address workflow ${id}: only the worker does`,
      });
    expect(refusedInput(await seen(c, { like: 1 }, 'offers:b:7'))).toEqual({
      code: 'shop_not_granted',
      message: 'client key ids may not name shop b',
    });
    expect(refusedInput(await seen(c, {}, 'sale:b:sku:x'))?.code).toBe('shop_not_granted');
    expect(refusedInput(await seen(c, {}, 'delist:b:p1'))?.code).toBe('shop_not_granted');
    expect(refusedInput(await seen(c, {}, 'auth:s2'))?.message).toBe('client key ids may not name seller s2');
    expect(refusedInput(await seen(c, { like: 1 }, 'offers:a:7'))).toBeUndefined();
    expect(refusedInput(await seen(c, {}, 'auth:s1'))).toBeUndefined();
    expect(refusedInput(await seen(worker, {}, 'lane:q:b:write'))).toBeUndefined();
  });

  it('a client holding the codec key cannot pass as the worker', async () => {
    const forged = AesGcmCodec.forClient(
      formatClientCredential({
        clientId: 'worker',
        codecKeyId: ring.currentId,
        codecKey: deriveKey(master, 'codec'),
        clientKey: randomBytes(32),
      }),
    );
    expect(refusedInput(await seen(forged, { shopId: 'a' }))).toEqual({
      code: 'unauthenticated_input',
      message: 'unauthenticated job input refused: the signature of "worker" does not match',
    });
  });
});

describe("the worker's checks", () => {
  it("scopes: shops, sellers (an OAuth shop's credentialRef is a seller), shopIds, anywhere in the value", async () => {
    const c = client('scope', ['a'], ['s1']);
    expect(refusedInput(await seen(c, { shop: { shopId: 'a', credentialRef: 'a' } }))).toBeUndefined();
    expect(refusedInput(await seen(c, { shops: [{ shopId: 'a' }, { shopId: 'b' }] }))?.message).toBe(
      'client key scope may not name shop b',
    );
    expect(refusedInput(await seen(c, { deep: [[{ shopIds: ['a', 'c'] }]] }))?.message).toBe(
      'client key scope may not name shop c',
    );
    expect(
      refusedInput(await seen(c, { shop: { shopId: 'a', credentialRef: 's1', auth: 'oauth' } })),
    ).toBeUndefined();
    expect(
      refusedInput(await seen(c, { shop: { shopId: 'a', credentialRef: 's2', auth: 'oauth' } }))?.message,
    ).toBe('client key scope may not name seller s2');
    expect(refusedInput(await seen(c, { sellerId: 7 }))?.code).toBe('shop_not_granted');
  });

  it('`*` grants every shop and seller', async () => {
    const all = client('all', ['*'], ['*']);
    expect(refusedInput(await seen(all, { shopId: 'x', sellerId: 'y' }))).toBeUndefined();
  });

  it('a retired key is refused from the next payload on (the keyring is re-read), an unknown one too', async () => {
    const c = client('retiring', ['a']);
    expect(refusedInput(await seen(c, { shopId: 'a' }))).toBeUndefined();
    retireClientKey(keyring, 'retiring');
    expect(refusedInput(await seen(c, { shopId: 'a' }))?.code).toBe('client_key_retired');
  });

  it('unsealed payloads are refused; a client codec passes them through (it never refuses)', async () => {
    const [refused] = await worker.decode([json({ shopId: 'a' })]);
    expect(refusedInput(JSON.parse(text(refused!.data)))?.message).toMatch(/^unsealed job input refused/);
    const reader = client('reader', ['a']);
    const [plain] = await reader.decode([json({ shopId: 'b' })]);
    expect(JSON.parse(text(plain!.data))).toEqual({ shopId: 'b' });
  });

  it('migration mode accepts sealed payloads without a signature, with a warning (not per payload)', async () => {
    const said: string[] = [];
    const migrating = new AesGcmCodec(ring, { clientAuth: 'migrate', warn: (m) => said.push(m) });
    for (let i = 0; i < 3; i++) {
      const [sealed] = await legacyEncode(json({ i }));
      const [opened] = await migrating.decode([sealed!]);
      expect(JSON.parse(text(opened!.data))).toEqual({ i });
    }
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/SELLING_KIT_CLIENT_AUTH=migrate/);
  });
});

/** A payload sealed as 0.4 sealed it: the derived codec key, no signature. */
async function legacyEncode(p: Payload): Promise<Payload[]> {
  const { createCipheriv } = await import('node:crypto');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(master, 'codec'), iv);
  const plain = proto.temporal.api.common.v1.Payload.encode(p).finish();
  return [
    {
      metadata: { encoding: utf8('binary/encrypted'), 'encryption-key-id': utf8(ring.currentId) },
      data: Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]),
    },
  ];
}

describe('the client credential', () => {
  it('round-trips, holds the derived codec key (never the master key), and errors never quote it', () => {
    const text = clientCredentialFor(ring, issueClientKey(keyring, { id: 'cred', shops: ['a'] }));
    expect(text).toMatch(/^skc1\.cred\.[0-9a-f]{8}\.[A-Za-z0-9_-]{86}$/);
    const c = parseClientCredential(text, 'test');
    expect(c.codecKey.equals(deriveKey(master, 'codec'))).toBe(true);
    expect(text).not.toContain(master.toString('base64url'));
    const broken = text.slice(0, -4);
    expect(() => parseClientCredential(broken, 'SELLING_KIT_CLIENT_KEY')).toThrow(
      /^SELLING_KIT_CLIENT_KEY is not a client key/,
    );
    try {
      parseClientCredential(broken, 'X');
    } catch (e) {
      expect((e as Error).message).not.toContain(broken.split('.')[3]!.slice(0, 20));
    }
  });
});

describe('namedShops', () => {
  it('collects shops and sellers wherever they are; non-text ids count as their JSON', () => {
    const named = namedShops({
      shop: { shopId: 'a', credentialRef: 'ref-a' },
      x: [{ shopIds: ['b'] }],
      sellerId: 3,
    });
    expect(named.shops.sort()).toEqual(['a', 'b', 'ref-a']);
    expect(named.sellers).toEqual(['3']);
    expect(namedShops({ shopId: { evil: true } }).shops).toEqual(['{"evil":true}']);
  });
});

describe('workflowIdScope matches the id functions beside it', () => {
  it('internal, shop-named, seller-named and payload-decided ids', () => {
    expect(workflowIdScope(contract.laneWorkflowId('q', 'a', 'write'))).toEqual({ internal: true });
    expect(workflowIdScope(contract.appBudgetWorkflowId('q', 'app'))).toEqual({ internal: true });
    expect(workflowIdScope(contract.shopDirectoryWorkflowId('q'))).toEqual({ internal: true });
    expect(workflowIdScope(contract.jobRetentionWorkflowId('q'))).toEqual({ internal: true });
    expect(workflowIdScope(contract.saleWorkflowId('a', { sku: 'x' }))).toEqual({ shops: ['a'] });
    expect(workflowIdScope(contract.delistWorkflowId('a', 'p'))).toEqual({ shops: ['a'] });
    expect(workflowIdScope(contract.orderWorkflowId('a', 'p'))).toEqual({ shops: ['a'] });
    expect(workflowIdScope(contract.likerOffersWorkflowId('a', 7))).toEqual({ shops: ['a'] });
    expect(workflowIdScope(contract.sellerAuthWorkflowId('s1'))).toEqual({ sellers: ['s1'] });
    for (const id of [
      contract.feedSyncWorkflowId('n'),
      contract.reconcileWorkflowId('n'),
      contract.reconcileSalesWorkflowId('n'),
      contract.jobReportWorkflowId('j', 'x'),
    ])
      expect(workflowIdScope(id)).toBeUndefined();
  });
});

describe('the client keyring file', () => {
  it('is 0600, never reuses an id, and lists keys by id', () => {
    const file = join(dir, 'ring2.json');
    issueClientKey(file, { id: 'one', shops: ['a'] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(() => issueClientKey(file, { id: 'one', shops: ['a'] })).toThrow(/is taken/);
    expect(() => issueClientKey(file, { id: 'worker', shops: ['a'] })).toThrow(/cannot be a client id/);
    expect(() => issueClientKey(file, { id: 'none', shops: [] })).toThrow(/--shops, --sellers or --all/);
    expect(readClientKeys(file).map((r) => r.id)).toEqual(['one']);
    expect(JSON.parse(readFileSync(file, 'utf8')).keys[0]).toHaveProperty('issuedAt');
  });
});

describe("the token store's own key", () => {
  it('is created 0600 only when asked, seals new writes, and stores sealed under the codec ring still open', async () => {
    const file = join(dir, 'token-store.key');
    expect(() => loadTokenStoreKey(file, { env: '' })).toThrow(/no token-store key/);
    const key = loadTokenStoreKey(file, { create: true, env: '' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadTokenStoreKey(file, { env: '' }).equals(key)).toBe(true);
    expect(key.equals(deriveKey(master, 'token-store'))).toBe(false);
    // A store written by 0.4 (the codec ring's derivation) opens with the new keyring, and is re-sealed.
    const path = join(dir, 'tokens.sealed');
    const tokens = {
      accessToken: 'at',
      refreshToken: 'rt',
      expiresAt: 1,
      clientId: 'c',
      baseUrl: 'https://x',
    };
    await createFileTokenStore(path, tokenStoreKeys(ring)).set('s1', tokens as never);
    const store = createFileTokenStore(path, tokenStoreKeyring(key, ring));
    expect(await store.get('s1')).toMatchObject({ accessToken: 'at' });
    await store.set('s2', tokens as never);
    expect(await createFileTokenStore(path, [key]).get('s2')).toMatchObject({ accessToken: 'at' });
  });
});
