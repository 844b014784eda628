// Attack (issue 22 §2, review M2): `selling-kit bulk --job-id ../x` — an id that climbs out of the job
// store — or any id outside the job contract's rule (contract.ts ID_PATTERN) is a usage error naming the
// rule, before the feed is read or anything starts (the worker refuses such an id too).
// @needs temporal
import { cliEnv, EXAMPLE_FEED, expectFailure, runCli } from '../helpers.ts';

const RULE =
  'is not a valid id: letters, digits, ".", "_" and "-", 1 to 128 characters, starting with a letter or digit';

describe('attack: a job id outside the id rule', () => {
  it.each(['../x', 'a/b', '.x'])('bulk --job-id %p is refused (exit 2), nothing started', async (jobId) => {
    const ctx = cliEnv();
    const r = await runCli(ctx, [
      '--json',
      'bulk',
      EXAMPLE_FEED,
      '--shop',
      'demo',
      '--op',
      'create',
      '--job-id',
      jobId,
    ]);
    expectFailure(r, 2, {
      code: 'bad_job_id',
      message: `--job-id ${JSON.stringify(jobId)} ${RULE} (^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$)`,
    });
    expect(r.stderr).not.toContain('started job');
  });
});
