// Attack (L1) on the worker: a credentials.json entry (or a sealed seller) whose base URL is cleartext
// http to a remote host would have every activity send that shop's API key over the network unencrypted.
// The worker's client refuses to build such a client: the activity fails non-retryably, naming the rule,
// and no request is made.
import { ApplicationFailure } from '@temporalio/common';
import { createClientCache } from '../../src/activities/clients.ts';

describe('attack: a stored base URL in cleartext', () => {
  it('the activity fails non-retryably with the reason; nothing is sent', async () => {
    const cache = createClientCache({
      credentials: () => ({ baseUrl: 'http://192.0.2.10:4010', apiKey: 'pak_must_not_travel_0123' }),
    });
    try {
      let caught: unknown;
      try {
        await cache.clientFor({ shopId: 'a', credentialRef: 'a' });
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ApplicationFailure);
      expect(caught).toMatchObject({
        type: 'InsecureBaseUrl',
        nonRetryable: true,
        message: expect.stringContaining('base URL http://192.0.2.10:4010 must use https:'),
      });
      expect((caught as Error).message).not.toContain('pak_must_not_travel');
    } finally {
      await cache.close();
    }
  });
});
