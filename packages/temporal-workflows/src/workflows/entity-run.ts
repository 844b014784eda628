// Entity workflows (a shop's lane, an app's budget) live on, answering updates, and start afresh
// (continue as new, carrying their state) before their history grows large: one run answers a bounded
// number of updates, or ends earlier when the server suggests it.
import { allHandlersFinished, condition, workflowInfo } from '@temporalio/workflow';

/** Updates one run of an entity workflow answers before it continues as new. */
export const UPDATES_PER_ENTITY_RUN = 500;

/**
 * Waits until this run is full (`handled()` updates answered, or the server suggests a new run) and every
 * handler in flight has finished: the caller then continues as new with its state.
 */
export async function entityRunEnds(handled: () => number): Promise<void> {
  await condition(() => handled() >= UPDATES_PER_ENTITY_RUN || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
}
