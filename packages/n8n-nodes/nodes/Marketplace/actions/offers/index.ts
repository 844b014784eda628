// The Offer resource: its operations (one file each, keyed by their Operation value) and its Operation
// choice.
import type { OperationModule } from '../operation';
import { resourceDescription } from '../resource';
import * as send from './send';
import * as setAutomatic from './setAutomatic';

export const operations: Record<string, OperationModule> = { send, setAutomatic };

export const description = resourceDescription('offers', operations, {
  default: 'send',
  options: [
    {
      name: 'Send',
      value: 'send',
      action: 'Send an offer',
      description: 'Send a manual offer to an interested buyer',
    },
    {
      name: 'Set Automatic Offers',
      value: 'setAutomatic',
      action: 'Set automatic offers',
      description: 'Set the auto-send and auto-negotiate offer prices and the discount price',
    },
  ],
});
