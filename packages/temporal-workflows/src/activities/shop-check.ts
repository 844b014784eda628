// A client host's check of a shop, run on the worker because the worker holds the shops' API keys and
// sellers' tokens and the client host holds none (issue 27 §6): which credential the worker has for the
// shop and whether the API accepts it, with one GET /api/v1/shop/. Started by `selling-kit bulk` before a
// job (client.ts `checkShop`); the answer names no secret (no key, no token; the base URL without its
// credentials).
import { SellingApiError, TransportError, UnauthorizedError } from '@selling-kit/api-client';
import type { ShopCheckInput, ShopCheckResult } from '../contract.ts';
import type { ActivityContext } from './context.ts';

export function createShopCheckActivities({ deps, clients }: ActivityContext) {
  return {
    async checkShop({ shopId, call = true }: ShopCheckInput): Promise<ShopCheckResult> {
      const apiKey = deps.credentials(shopId);
      const auth = apiKey ? 'api_key' : (await deps.tokens?.get(shopId)) ? 'oauth' : undefined;
      if (!auth)
        return {
          shopId,
          ok: false,
          code: 'unknown_shop',
          message: `the worker has no API key and no connected seller for shop "${shopId}"`,
        };
      if (!call) return { shopId, ok: true, auth, called: false };
      const where = apiKey ? ` at ${new URL(apiKey.baseUrl).origin}` : '';
      try {
        const client = await clients.clientFor({ shopId, credentialRef: shopId, auth });
        await client.shop.get();
        return { shopId, ok: true, auth, called: true };
      } catch (e) {
        if (e instanceof UnauthorizedError)
          return {
            shopId,
            ok: false,
            auth,
            code: 'credential_rejected',
            message: `the ${auth === 'oauth' ? "seller's tokens" : 'API key'} of shop "${shopId}" was rejected${where} (401 unauthorized)`,
          };
        if (e instanceof SellingApiError && !(e instanceof TransportError))
          return {
            shopId,
            ok: false,
            auth,
            code: 'credential_check_failed',
            message: `checking shop "${shopId}"${where} failed: ${[e.status, e.code].filter(Boolean).join(' ')}`,
          };
        return {
          shopId,
          ok: false,
          auth,
          code: 'api_unreachable',
          message: `the API${where} (shop "${shopId}") cannot be reached from the worker: ${(e as Error).message}`,
        };
      }
    },
  };
}
