// The admin routes of products, orders and likes: what buyers do.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod/v4';
import { likeProduct, unlikeProduct } from '../domain/products.ts';
import { productUpdatedData } from '../domain/product-wire.ts';
import { parseInput } from '../handlers/params.ts';
import { createOrder } from '../domain/orders.ts';
import type { AdminDeps } from './deps.ts';
import { IdParam, json, productOf, sellerOf } from './replies.ts';

export function productsRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { world, webhooks } = deps;
  app.get('/admin/products/:id', async (req, reply) => {
    const product = productOf(world, parseInput(IdParam, req.params).id);
    return json(reply, product);
  });
  app.post('/admin/products/:id/ban', async (req, reply) => {
    const product = productOf(world, parseInput(IdParam, req.params).id);
    if (product.state !== 'banned') {
      product.previousState = product.state;
      product.state = 'banned';
      product.updatedAt = world.clock.now();
      webhooks.emit(product.sellerId, 'v1:product.updated', productUpdatedData(product, ['status']));
    }
    return json(reply, {
      productId: product.productId,
      state: product.state,
      previousState: product.previousState,
    });
  });
  app.post('/admin/products/:id/likes', async (req, reply) => {
    const product = productOf(world, parseInput(IdParam, req.params).id);
    const body = parseInput(z.object({ likerId: z.number().int().positive().optional() }).strict(), req.body);
    const likerId = body.likerId ?? 900_001 + product.likes.size;
    likeProduct(world.sellers.get(product.sellerId)!, product.productId, likerId, webhooks);
    return json(reply, { productId: product.productId, likerId, likes: product.likes.size }, 201);
  });
  app.delete('/admin/products/:id/likes/:likerId', async (req, reply) => {
    const { id, likerId } = parseInput(
      z.object({ id: z.coerce.number().int(), likerId: z.coerce.number().int() }),
      req.params,
    );
    const product = productOf(world, id);
    unlikeProduct(world.sellers.get(product.sellerId)!, product.productId, likerId, webhooks);
    return json(reply, { productId: product.productId, likerId, likes: product.likes.size });
  });
  app.post('/admin/orders', async (req, reply) => {
    const body = parseInput(
      z
        .object({
          sellerId: z.number().int(),
          productIds: z.array(z.number().int()).min(1),
          buyerId: z.number().int().positive().optional(),
        })
        .strict(),
      req.body,
    );
    const seller = sellerOf(world, body.sellerId);
    const order = createOrder(world, seller, body.productIds, {
      now: world.clock.now(),
      buyerId: body.buyerId,
      events: webhooks,
    });
    return json(reply, order, 201);
  });
}
