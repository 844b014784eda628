// GET /status → {"status":"OK"}. SPEC GAP: the public reference leaves open whether it needs a
// credential; ours answers without one (a load balancer's probe has none).
import type { Handlers } from './types.ts';

const OK = Object.freeze({ status: 'OK' });

export const statusHandlers: Handlers = {
  'status.get': () => ({ body: OK }),
};
