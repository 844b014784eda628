// Cursor pagination over `{ meta: { cursor, has_more }, data: [...] }`: iterate items across pages
// with `for await`, or whole pages with `.pages()`. Items seen on an earlier page are skipped (lists
// can shift while being walked), and a cursor that repeats ends the walk instead of looping.
import type { Page } from '../core/schemas/common.ts';

export type FetchPage<T> = (cursor: string | undefined) => Promise<Page<T>>;

export class PageIterator<T> implements AsyncIterable<T> {
  private readonly fetchPage: FetchPage<T>;
  private readonly keyOf: ((item: T) => unknown) | undefined;

  constructor(fetchPage: FetchPage<T>, keyOf?: (item: T) => unknown) {
    this.fetchPage = fetchPage;
    this.keyOf = keyOf;
  }

  /** Each page as the service returns it (no de-duplication). */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      const next = page.meta.cursor ?? undefined;
      if (!page.meta.has_more || !next || seen.has(next)) return;
      seen.add(next);
      cursor = next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    const seen = this.keyOf ? new Set<unknown>() : undefined;
    for await (const page of this.pages()) {
      for (const item of page.data) {
        if (seen) {
          const key = this.keyOf!(item);
          if (seen.has(key)) continue;
          seen.add(key);
        }
        yield item;
      }
    }
  }

  /** The first page only. */
  async firstPage(): Promise<Page<T>> {
    return this.fetchPage(undefined);
  }

  /** Every item (or the first `max`) in an array. */
  async toArray(options: { max?: number } = {}): Promise<T[]> {
    const out: T[] = [];
    const max = options.max ?? Infinity;
    if (max <= 0) return out;
    for await (const item of this) {
      out.push(item);
      if (out.length >= max) break;
    }
    return out;
  }
}
