// Bearer credentials → Principal. API keys (`pak_…`) belong to one shop and hold every scope;
// OAuth access tokens (`pat_…`) belong to one seller and hold the granted scopes.
import { SCOPES, type Operation } from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import type { Principal, World } from '../state.ts';

const ALL_SCOPES = new Set(SCOPES);

export function authenticate(world: World, header: string | undefined): Principal {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match)
    throw apiError(
      'unauthorized',
      'missing bearer credential: send "Authorization: Bearer <API key or access token>"',
    );
  const credential = match[1]!;
  const key = world.apiKeys.get(credential);
  if (key) {
    if (world.partners.get(key.partnerId)?.accessDenied)
      throw apiError('partner_access_denied', 'API access is disabled for this partner');
    return { kind: 'api_key', partnerId: key.partnerId, sellerId: key.sellerId, scopes: ALL_SCOPES };
  }
  const token = world.accessTokens.get(credential);
  if (token) {
    if (token.expiresAt <= world.clock.now())
      throw apiError('unauthorized', 'access token expired: refresh it');
    const client = world.oauthClients.get(token.clientId);
    if (!client) throw apiError('unauthorized', 'invalid access token');
    if (world.partners.get(client.partnerId)?.accessDenied)
      throw apiError('partner_access_denied', 'API access is disabled for this partner');
    return {
      kind: 'oauth',
      partnerId: client.partnerId,
      sellerId: token.sellerId,
      scopes: new Set(token.scopes),
      clientId: token.clientId,
    };
  }
  throw apiError('unauthorized', 'invalid API key or access token');
}

export function requireScopes(op: Operation, principal: Principal): void {
  const missing = op.scopes.filter((s) => !principal.scopes.has(s));
  if (missing.length)
    throw apiError(
      'insufficient_scope',
      `missing required scope(s): ${missing.join(', ')}; the seller must re-authorise with them`,
    );
  if (op.scopesAnyOf && !op.scopesAnyOf.some((s) => principal.scopes.has(s))) {
    throw apiError('insufficient_scope', `requires one of the scopes: ${op.scopesAnyOf.join(', ')}`);
  }
}
