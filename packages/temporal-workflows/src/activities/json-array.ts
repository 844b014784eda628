// A JSON-array feed read item by item, in memory that stays flat however long the array is (review N12:
// the whole file was buffered and parsed in one call, and a few hundred MB could run a worker out of
// memory, killing every window in flight on it).
//
// Not a full streaming JSON parser: a scanner finds where each top-level item ends — a `,` or the closing
// `]` outside any string and outside any nested array or object — and JSON.parse (native, strict) parses
// that item's text. Every item's text is checked by JSON.parse and the frame (`[`, commas, `]`, nothing
// after) by the scanner, so the file is accepted exactly when JSON.parse would accept it whole; a
// bracket that does not match leaves an item text JSON.parse refuses. The scanner works on bytes: in
// UTF-8 no byte of a multi-byte character is ASCII, so a `"` `\` `,` `[` `]` `{` `}` byte is always that
// character, and an item's bytes decode whole. Why not a streaming JSON library (@streamparser/json,
// stream-json): they tokenise and build every value in JavaScript, and one more dependency would do what
// native JSON.parse already does per item; the scanner only has to find where items end.
import { printable } from './feed-source.ts';

/**
 * One item's text is buffered whole, so its size is bounded: by the worker's feed policy
 * (`maxRecordBytes`, feed-policy.ts) when snapshot.ts reads a feed, by this when no bound is given.
 */
export const JSON_ITEM_MAX_BYTES = 16 * 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const BOM = [0xef, 0xbb, 0xbf];

/**
 * The items of the JSON array `bytes` holds, parsed, in order. Anything but one array (a blank file,
 * an object, a cut-off file, text after the array, an item that does not parse) throws `fail(reason)`
 * as soon as it is seen. An item above `maxItemBytes` throws `tooLarge()` (default: `fail`, naming the
 * size) as soon as its pending bytes pass it.
 */
export async function* jsonArrayItems(
  bytes: AsyncIterable<Buffer>,
  fail: (reason: string) => Error,
  maxItemBytes = JSON_ITEM_MAX_BYTES,
  tooLarge?: () => Error,
): AsyncGenerator<unknown> {
  let state: 'before' | 'inside' | 'after' = 'before';
  let depth = 0; // 1: directly inside the top-level array
  let inString = false;
  let escaped = false;
  let position = 0; // bytes of the file before the current chunk
  let bom = 0; // BOM bytes matched at the file's start
  let item: Buffer[] = []; // the current item's bytes from earlier chunks
  let itemBytes = 0;
  let itemStart = 0; // the current item's first byte (in the file)
  let items = 0;

  const tooBig = () =>
    tooLarge?.() ?? fail(`item ${items + 1} (from byte ${itemStart}) is larger than ${maxItemBytes} bytes`);

  /** The current item's text ends before byte `end` of `chunk` (which starts at `from`). */
  const finish = (chunk: Buffer, from: number, end: number, closing: boolean): unknown[] => {
    const piece = chunk.subarray(from, end);
    if (itemBytes + piece.length > maxItemBytes) throw tooBig();
    const text = (item.length ? Buffer.concat([...item, piece]) : piece).toString('utf8');
    item = [];
    itemBytes = 0;
    if (text.trim() === '') {
      if (closing && items === 0) return []; // `[]`
      throw fail(`not valid JSON: an empty item at byte ${position + end} (a comma too many?)`);
    }
    items++;
    try {
      return [JSON.parse(text)];
    } catch (error) {
      const reason = (error as Error).message.replace(/ in JSON at position \d+.*$/s, '');
      throw fail(`not valid JSON: item ${items} (from byte ${itemStart}): ${printable(reason, 200)}`);
    }
  };

  for await (const chunk of bytes) {
    let i = 0;
    if (state === 'before') {
      // A spreadsheet's UTF-8 byte order mark, then blanks, then `[`.
      while (bom < BOM.length && bom === position + i && i < chunk.length && chunk[i] === BOM[bom]) {
        i++;
        bom++;
      }
      while (i < chunk.length && isSpace(chunk[i]!)) i++;
      if (i === chunk.length) {
        position += chunk.length;
        continue;
      }
      if (chunk[i] !== OPEN_ARRAY)
        throw fail(
          `a JSON feed must be an array of items (it starts with "${printable(chunk.subarray(i), 20)}")`,
        );
      state = 'inside';
      depth = 1;
      i++;
      itemStart = position + i;
    }
    let from = i; // where the current item's bytes start in this chunk
    const ready: unknown[] = [];
    for (; i < chunk.length && state === 'inside'; i++) {
      if (inString) {
        i = stringEnd(chunk, i, escaped);
        escaped = i < 0 && trailingEscape(chunk, escaped);
        if (i < 0)
          i = chunk.length; // the string goes on in the next chunk
        else inString = false; // i: its closing quote
        continue;
      }
      const b = chunk[i]!;
      if (b === QUOTE) inString = true;
      else if (b === OPEN_ARRAY || b === OPEN_OBJECT) depth++;
      else if (depth > 1 && (b === CLOSE_ARRAY || b === CLOSE_OBJECT)) depth--;
      else if (depth === 1 && (b === COMMA || b === CLOSE_ARRAY)) {
        ready.push(...finish(chunk, from, i, b === CLOSE_ARRAY));
        from = i + 1;
        itemStart = position + from;
        if (b === CLOSE_ARRAY) state = 'after';
      } else if (depth === 1 && b === CLOSE_OBJECT)
        throw fail(`not valid JSON: an unexpected "}" at byte ${position + i}`);
    }
    if (state === 'inside') {
      item.push(chunk.subarray(from));
      itemBytes += chunk.length - from;
      if (itemBytes > maxItemBytes) throw tooBig();
    } else if (state === 'after') {
      for (; i < chunk.length; i++)
        if (!isSpace(chunk[i]!))
          throw fail(`not valid JSON: text after the array's closing "]" (at byte ${position + i})`);
    }
    position += chunk.length;
    yield* ready;
  }
  if (state === 'before') throw fail('not valid JSON: the file holds no JSON array (it is blank)');
  if (state === 'inside') throw fail('not valid JSON: the file ends inside the array (is it cut short?)');
}

/**
 * Inside a string from byte `from` of `chunk` (`escaped`: the byte before `from` was an escaping
 * backslash): the index of the string's closing quote, or -1 when it is not in this chunk. Jumps from
 * quote to quote (strings are most of a feed's bytes); a quote after an odd run of backslashes is text.
 */
function stringEnd(chunk: Buffer, from: number, escaped: boolean): number {
  let start = from;
  if (escaped) {
    if (from >= chunk.length) return -1;
    start = from + 1; // the escaped byte itself
  }
  for (let q = chunk.indexOf(QUOTE, start); q !== -1; q = chunk.indexOf(QUOTE, q + 1)) {
    let run = 0;
    while (q - run - 1 >= start && chunk[q - run - 1] === BACKSLASH) run++;
    if (run % 2 === 0) return q;
  }
  return -1;
}

/** Whether a string that goes on past `chunk` ends it with an escaping backslash (an odd run of them). */
function trailingEscape(chunk: Buffer, escapedBefore: boolean): boolean {
  let run = 0;
  while (run < chunk.length && chunk[chunk.length - 1 - run] === BACKSLASH) run++;
  // A run that fills the whole chunk continues the one before it.
  if (run === chunk.length && escapedBefore) run++;
  return run % 2 === 1;
}
