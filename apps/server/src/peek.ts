/**
 * The first bytes of a byte stream, looked at before it is read: what the input readers (gzip-input.ts,
 * utf16-input.ts) decide by. `head` holds at least `n` bytes (fewer only when the stream is shorter); `all`
 * yields the whole stream from its start, `head` first, then the chunks not yet read. Strings are read as UTF-8.
 */
export async function peek(
  source: AsyncIterable<Buffer | string>,
  n: number,
): Promise<{ head: Buffer; all: AsyncGenerator<Buffer> }> {
  const it = source[Symbol.asyncIterator]();
  const bytes = (v: Buffer | string) => (typeof v === 'string' ? Buffer.from(v) : v);
  let head = Buffer.alloc(0);
  let done = false;
  while (head.length < n) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    head = Buffer.concat([head, bytes(r.value)]);
  }
  async function* all(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (!done) for (let r = await it.next(); !r.done; r = await it.next()) yield bytes(r.value);
  }
  return { head, all: all() };
}
