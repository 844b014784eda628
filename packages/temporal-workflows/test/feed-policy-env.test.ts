// The worker's feed policy from its environment (worker-main, `selling-kit worker`): what each setting
// turns on, and a bad value named with its variable instead of silently ignored.
import { FEED_POLICY_ENV, FeedPolicyError, feedPolicyFromEnv } from '../src/activities/feed-policy.ts';

it('plain http to loopback only when SELLING_KIT_FEED_LOOPBACK_HTTP is 1; any other value is an error', () => {
  expect(feedPolicyFromEnv({}).allowLoopbackHttp).toBe(false);
  expect(feedPolicyFromEnv({ [FEED_POLICY_ENV.loopbackHttp]: '0' }).allowLoopbackHttp).toBe(false);
  expect(feedPolicyFromEnv({ [FEED_POLICY_ENV.loopbackHttp]: '1' }).allowLoopbackHttp).toBe(true);
  expect(() => feedPolicyFromEnv({ [FEED_POLICY_ENV.loopbackHttp]: 'yes' })).toThrow(FeedPolicyError);
  expect(() => feedPolicyFromEnv({ [FEED_POLICY_ENV.loopbackHttp]: 'yes' })).toThrow(
    'SELLING_KIT_FEED_LOOPBACK_HTTP: "yes" is not 0 or 1',
  );
});

it('roots must be absolute; limits must be whole numbers above 0', () => {
  expect(() => feedPolicyFromEnv({ [FEED_POLICY_ENV.roots]: 'feeds' })).toThrow(/is not an absolute path/);
  expect(() => feedPolicyFromEnv({ [FEED_POLICY_ENV.maxBytes]: '-1' })).toThrow(/whole number above 0/);
  expect(feedPolicyFromEnv({ [FEED_POLICY_ENV.maxItems]: '10' }).maxItems).toBe(10);
});
