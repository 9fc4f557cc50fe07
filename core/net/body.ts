/**
 * Reads a response's body up to a size: `limit` bytes, or as many as `limit(firstChunk)` says (so
 * a caller can allow more once it sees what the body is: a PDF, useless when cut, reads further
 * than a page). Once the limit is reached the reading stops (the rest is cancelled), `cut` is
 * true and `bytes` holds exactly `limit` bytes.
 */
export async function readBody(response: Response, limit: number | ((head: Uint8Array) => number)): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const limitFor = (head: Uint8Array) => (typeof limit === 'number' ? limit : limit(head));
  if (!response.body) {
    const all = new Uint8Array(await response.arrayBuffer());
    const max = limitFor(all);
    return all.length >= max ? { bytes: all.subarray(0, max), cut: true } : { bytes: all, cut: false };
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let max = Infinity;
  let size = 0;
  let cut = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!chunks.length) max = limitFor(value);
    chunks.push(value);
    size += value.byteLength;
    if (size >= max) {
      cut = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  const bytes = new Uint8Array(Math.min(size, max));
  let at = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - at);
    bytes.set(part, at);
    at += part.length;
    if (at >= bytes.length) break;
  }
  return { bytes, cut };
}
