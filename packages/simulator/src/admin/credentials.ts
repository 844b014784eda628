// The admin routes of credentials: API keys, OAuth clients, tokens issued directly.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod/v4';
import { SCOPES, type Scope } from '@selling-kit/api-client/core';
import { ApiError } from '../errors.ts';
import { parseInput } from '../handlers/params.ts';
import { createApiKey, createOAuthClient, newSecret } from '../world.ts';
import type { AdminDeps } from './deps.ts';
import { json, notFound, sellerOf } from './replies.ts';

export function credentialsRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { world, config } = deps;
  app.post('/admin/api-keys', async (req, reply) => {
    const body = parseInput(
      z
        .object({
          partnerId: z.string().min(1),
          sellerId: z.number().int(),
          key: z
            .string()
            .regex(/^[\x21-\x7e]+$/)
            .optional(),
        })
        .strict(),
      req.body,
    );
    sellerOf(world, body.sellerId);
    if (body.key && world.apiKeys.has(body.key))
      throw new ApiError(409, 'generic_error', 'that API key exists');
    return json(reply, createApiKey(world, body.partnerId, body.sellerId, body.key), 201);
  });
  app.post('/admin/oauth-clients', async (req, reply) => {
    const body = parseInput(
      z
        .object({
          partnerId: z.string().min(1),
          redirectUris: z.array(z.url()).min(1),
          clientId: z
            .string()
            .regex(/^[\x21-\x7e]+$/)
            .optional(),
          clientSecret: z
            .string()
            .regex(/^[\x21-\x7e]+$/)
            .optional(),
        })
        .strict(),
      req.body,
    );
    if (body.clientId && world.oauthClients.has(body.clientId)) {
      throw new ApiError(409, 'generic_error', 'that client id exists');
    }
    return json(
      reply,
      createOAuthClient(world, body.partnerId, body.redirectUris, body.clientId, body.clientSecret),
      201,
    );
  });
  /** Issues a token pair without the consent redirect (tests of cross-lister flows). */
  app.post('/admin/oauth/tokens', async (req, reply) => {
    const body = parseInput(
      z
        .object({
          clientId: z.string().min(1),
          sellerId: z.number().int(),
          scopes: z.array(z.enum(SCOPES)).default([...SCOPES]),
        })
        .strict(),
      req.body,
    );
    const client = world.oauthClients.get(body.clientId);
    if (!client) throw notFound(`OAuth client ${body.clientId}`);
    sellerOf(world, body.sellerId);
    const now = world.clock.now();
    const scopes = [...new Set(body.scopes)] as Scope[];
    const accessToken = newSecret('pat_');
    const refreshToken = newSecret('prt_');
    world.accessTokens.set(accessToken, {
      token: accessToken,
      clientId: client.clientId,
      sellerId: body.sellerId,
      scopes,
      expiresAt: now + config.accessTokenTtlSec * 1000,
    });
    world.refreshTokens.set(refreshToken, {
      token: refreshToken,
      clientId: client.clientId,
      sellerId: body.sellerId,
      scopes,
      used: false,
      expiresAt: now + config.refreshTokenTtlSec * 1000,
    });
    return json(
      reply,
      {
        access_token: accessToken,
        refresh_token: refreshToken,
        expires_in: config.accessTokenTtlSec,
        token_type: 'Bearer',
        scope: scopes.join(' '),
      },
      201,
    );
  });
}
