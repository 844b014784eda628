// Before a job starts: one cheap request per API-key shop (GET /api/v1/shop/) so a wrong key or an
// unreachable API is a clear error now, not a report full of 401s later.
import { createClient, SellingApiError, TransportError, UnauthorizedError } from '@selling-kit/api-client';
import { CliError, EXIT } from './errors.ts';
import type { ShopCredential } from './stores.ts';

export async function checkShopCredential(shopId: string, credential: ShopCredential): Promise<void> {
  const client = createClient({
    baseUrl: credential.baseUrl,
    apiKey: credential.apiKey,
    retry: { maxRetries: 1 },
    timeoutMs: 10_000,
    totalTimeoutMs: 20_000,
  });
  try {
    await client.shop.get();
  } catch (e) {
    if (e instanceof UnauthorizedError)
      throw new CliError(
        'credential_rejected',
        `the API key of shop "${shopId}" was rejected by ${credential.baseUrl} (401 unauthorized)`,
        EXIT.credentials,
        `store the right key with \`selling-kit shops add ${shopId} --api-key-stdin\``,
      );
    if (e instanceof SellingApiError && !(e instanceof TransportError))
      throw new CliError(
        'credential_check_failed',
        `checking shop "${shopId}" at ${credential.baseUrl} failed: ${e.status ?? ''} ${e.code}`.replace(
          '  ',
          ' ',
        ),
        EXIT.credentials,
      );
    throw new CliError(
      'api_unreachable',
      `the API at ${credential.baseUrl} (shop "${shopId}") cannot be reached: ${(e as Error).message}`,
      EXIT.credentials,
      'is the simulator running (`selling-kit simulator --demo`), or is the base URL right?',
    );
  }
}
