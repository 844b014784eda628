// Probes of authentication failures (read-only: GET /api/v1/shop/ with a wrong or no credential).
import { expectReply, type Probe } from './probe.ts';

const SPEC_401 = '"A missing, invalid or expired token or key fails with 401 unauthorized."';

export const authProbes: Probe[] = [
  {
    id: 'auth.invalid-key',
    spec: SPEC_401,
    expected: '401 unauthorized',
    choice: '',
    async run(ctx) {
      const bearer = 'pak_selling_kit_conformance_not_a_key';
      return expectReply(
        await ctx.raw({ method: 'GET', path: '/api/v1/shop/', auth: { bearer } }),
        401,
        'unauthorized',
      );
    },
  },
  {
    id: 'auth.missing-key',
    spec: SPEC_401,
    expected: '401 unauthorized',
    choice: '',
    run: async (ctx) =>
      expectReply(await ctx.raw({ method: 'GET', path: '/api/v1/shop/', auth: 'none' }), 401, 'unauthorized'),
  },
];
