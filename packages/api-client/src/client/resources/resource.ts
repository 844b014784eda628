// What every resource of the client (client.products, client.orders, …) shares: the client context it
// sends through, and the walk over a list operation's pages.
import type { Operation } from '../../core/operations.ts';
import type { QueryValue } from '../../core/request.ts';
import type { Page } from '../../core/schemas/common.ts';
import type { ClientContext } from '../client.ts';
import { PageIterator } from '../pagination.ts';
import type { RequestOptions } from '../requester.ts';

export abstract class Resource {
  protected readonly ctx: ClientContext;

  constructor(ctx: ClientContext) {
    this.ctx = ctx;
  }

  /**
   * The pages of list operation `op`: `query` is checked once, when the iterator is made (a bad
   * filter throws before anything is sent), so the pages' calls do not check it again. `keyOf` names
   * an item, to skip one already seen on an earlier page.
   */
  protected checkedPages<T>(
    op: Operation,
    query: Record<string, QueryValue>,
    options: RequestOptions | undefined,
    keyOf: (item: T) => unknown,
  ): PageIterator<T> {
    this.ctx.requester.preflight({ op, query, options });
    return new PageIterator<T>(
      (cursor) =>
        this.ctx.requester.call<Page<T>>({
          op,
          query: { ...query, cursor },
          options: { ...options, validate: false },
        }),
      keyOf,
    );
  }
}
