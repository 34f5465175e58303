/**
 * Newline-delimited JSON off a response body (a watch's chunked WatchEvents): each chunk's complete lines
 * parsed, in order. Linear in the bytes read: a line is cut out once, whatever the chunk sizes.
 */
export async function* jsonLines<T>(body: AsyncIterable<Uint8Array>): AsyncGenerator<T[]> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of body) {
    const text = rest + decoder.decode(chunk, { stream: true });
    const out: T[] = [];
    let from = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
      const line = text.slice(from, nl);
      if (line.trim() !== '') out.push(JSON.parse(line) as T);
      from = nl + 1;
    }
    rest = text.slice(from);
    if (out.length > 0) yield out;
  }
}
