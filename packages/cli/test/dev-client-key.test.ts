// `selling-kit dev` gives its n8n a client key scoped to the demo shops. A restart keeps that key while it
// still grants the same shops: n8n's jobs of the earlier run are in history, signed with it, and a worker
// replaying them must still find it (a new random key would turn them into refusals on replay).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { keyringOf } from '@selling-kit/temporal-workflows';
import { loadConfig } from '../src/config.ts';
import { issueDevClientKey } from '../src/stores.ts';

it("keeps the dev n8n's client key across restarts, and issues a new one when the shops change", () => {
  const home = mkdtempSync(join(tmpdir(), 'sk-dev-key-'));
  const config = loadConfig({ home }, {});
  const ring = keyringOf(randomBytes(32));
  const first = issueDevClientKey(config, ring, ['demo', 'demo-us']);
  expect(issueDevClientKey(config, ring, ['demo-us', 'demo'])).toBe(first);
  const other = issueDevClientKey(config, ring, ['demo']);
  expect(other).not.toBe(first);
  expect(issueDevClientKey(config, ring, ['demo'])).toBe(other);
});
