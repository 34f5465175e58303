/**
 * Item-wise codecs for the two list answers a kubelet asks for every second (ListPodSandboxResponse.items,
 * ListContainersResponse.containers). Both messages are one repeated field 1, so their wire form is the
 * concatenation of one `tag len item` chunk per item, and the chunk of an item that did not change is the
 * same bytes from one answer to the next. Between relists almost nothing changes, so:
 *
 *   client (decodeListItemwise)   an answer byte-identical to one of the last two is not parsed at all;
 *                                 otherwise it splits the answer into chunks and decodes only chunks it has
 *                                 not seen in the last two answers (a seen chunk yields the object decoded
 *                                 then).
 *   server (encodeListItemwise)   encodes each frozen item once and concatenates the cached chunks.
 *
 * The shapes are exactly proto-loader's (every chunk goes through the original codec once). Items handed
 * out by the client decoder are deep-frozen and shared between answers: callers must not mutate them.
 * Anything unexpected on the wire (another field, a truncated chunk) falls back to the original codec.
 */

type Deserialize = (buf: Buffer) => unknown;
type Serialize = (value: unknown) => Buffer;

/** Whole answers a decoder remembers: relist's list of everything and housekeeping's of running ones. */
const RECENT_ANSWERS = 2;

/** Wire tag of field 1, length-delimited: (1 << 3) | 2. */
const FIELD1_LEN = 0x0a;

/** A deserializer that reuses the decoded item of every chunk seen in the last two answers. */
export function decodeListItemwise(original: Deserialize, field: string): Deserialize {
  let current = new Map<string, object>();
  let previous = new Map<string, object>();
  // The last answers whole: an answer byte-identical to one of them (an idle node) costs one compare.
  const recent: { buf: Buffer; items: readonly object[] }[] = [];
  return (buf) => {
    for (const r of recent) if (r.buf.equals(buf)) return { [field]: [...r.items] };
    const items: object[] = [];
    const seen = new Map<string, object>();
    let pos = 0;
    while (pos < buf.length) {
      const start = pos;
      if (buf[pos++] !== FIELD1_LEN) return original(buf);
      let len = 0;
      let shift = 0;
      let byte: number;
      do {
        if (pos >= buf.length || shift > 28) return original(buf);
        byte = buf[pos++] as number;
        len += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      } while (byte & 0x80);
      const end = pos + len;
      if (end > buf.length) return original(buf);
      const key = buf.toString('latin1', start, end);
      let item = seen.get(key) ?? current.get(key) ?? previous.get(key);
      if (!item) {
        const one = original(buf.subarray(start, end)) as Record<string, object[]>;
        item = deepFreeze(one[field]?.[0] as object);
      }
      seen.set(key, item);
      items.push(item);
      pos = end;
    }
    previous = current;
    current = seen;
    recent.unshift({ buf, items: [...items] });
    recent.length = Math.min(recent.length, RECENT_ANSWERS);
    return { [field]: items };
  };
}

/**
 * A serializer that encodes each frozen item of `value[field]` once (remembered per object, dropped with
 * it) and the whole answer once per array instance; unfrozen items are encoded every time.
 */
export function encodeListItemwise(original: Serialize, field: string): Serialize {
  const chunks = new WeakMap<object, Buffer>();
  const answers = new WeakMap<object, Buffer>();
  return (value) => {
    const items = (value as Record<string, unknown> | null)?.[field];
    if (!Array.isArray(items)) return original(value);
    const whole = answers.get(items);
    if (whole) return whole;
    const parts: Buffer[] = new Array(items.length);
    let total = 0;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as object;
      let chunk = chunks.get(item);
      if (!chunk) {
        chunk = original({ [field]: [item] });
        if (Object.isFrozen(item)) chunks.set(item, chunk);
      }
      parts[i] = chunk;
      total += chunk.length;
    }
    const buf = Buffer.concat(parts, total);
    if (Object.isFrozen(items) && items.every((x) => chunks.has(x as object))) answers.set(items, buf);
    return buf;
  };
}

/** Freezes an object graph of plain objects and arrays (a decoded message); returns it. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (ArrayBuffer.isView(value)) return value; // bytes fields: typed arrays cannot be frozen
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
