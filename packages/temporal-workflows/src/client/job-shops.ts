// A bulk job's shops as the job itself answers them (the `jobShops` query, bulk-listing.ts and
// multi-shop.ts): what a client that does not know them names in a JobMessage (client.ts pauseJob…) and
// in a report read (report-client.ts). A worker answers, also for a job that has ended (it replays the
// job's history); a job gone from Temporal has no answer: its reader names the shops itself.
import type { Client } from '@temporalio/client';
import { bulkWorkflowId, refusedInput } from '../contract.ts';
import { shopsQuery } from '../workflows/index.ts';

export async function jobShops(client: Client, jobId: string): Promise<string[]> {
  const answer: unknown = await client.workflow.getHandle(bulkWorkflowId(jobId)).query(shopsQuery);
  // An answer this client's codec could not open (another deployment's keys) is no list of shops.
  const refused = refusedInput(answer);
  if (refused) throw new Error(`job ${jobId}'s shops could not be read: ${refused.message}`);
  if (!Array.isArray(answer) || answer.some((s) => typeof s !== 'string'))
    throw new Error(`job ${jobId}'s shops could not be read: its answer is not a list of shop ids`);
  return answer as string[];
}
