import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestTimings } from '@/core/agent/provider';
import { LAST_EVENT as DONE } from '@/core/agent/providers/openai-compatible-client';
import { timedFetch } from '@/core/agent/providers/sdk';
import type { TraceSink } from '@/core/data/trace';

/** A server that streams `events` and then holds the response open until `finish` is called. */
async function holdingServer(events: string[]) {
  let held: ServerResponse | undefined;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of events) res.write(event);
    held = res;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`,
    finish(rest = '') {
      held?.end(rest);
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
  return text;
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('timedFetch', () => {
  it("ends the body at the wire format's last event, without waiting for the HTTP body's end", async () => {
    const server = await holdingServer(['data: {"a":1}\n\n', 'data: [DONE]\n\n']);
    close = server.close;
    const timings: RequestTimings = {};
    const trace: TraceSink = { attempts: 0 };
    const fetchFn = timedFetch(() => ({ timings, trace }), DONE);
    const response = await fetchFn(server.url, { method: 'POST', body: '{}' });
    // The server still holds the response open: without the last event this would never end.
    expect(await readAll(response.body!)).toBe('data: {"a":1}\n\ndata: [DONE]\n\n');
    expect(timings.bodyEndAt).toBeGreaterThanOrEqual(timings.lastByteAt!);
    // What comes after is still read (and traced), so the connection is kept for the next request.
    server.finish(': after the end\n');
    await expect.poll(() => trace.response?.body).toBe('data: {"a":1}\n\ndata: [DONE]\n\n: after the end\n');
  });

  it('reads to the end of the body when the last event is not there (or not asked for)', async () => {
    for (const lastEvent of [DONE, undefined]) {
      const server = await holdingServer(['data: {"a":1}\n\n', 'data: {"b":2}\n\n']);
      close = server.close;
      const timings: RequestTimings = {};
      const response = await timedFetch(() => ({ timings }), lastEvent)(server.url, { method: 'POST', body: '{}' });
      const text = readAll(response.body!);
      let ended = false;
      void text.then(() => (ended = true));
      await expect.poll(() => timings.lastByteAt).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(ended).toBe(false);
      server.finish('data: [DONE]\n\n');
      expect(await text).toBe('data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n');
      await server.close();
      close = undefined;
    }
  });

  it('does not take "[DONE]" inside an event for the last event', () => {
    for (const chunk of ['data: {"text":"data: [DONE]"}\n\n', 'data: [DONE] and more\n\n', 'xdata: [DONE]\n\n']) expect(DONE.test(chunk)).toBe(false);
    for (const chunk of ['data: [DONE]\n\n', 'data: {}\n\ndata: [DONE]\n\n', 'data:[DONE]\r\n\r\n', 'data: [DONE]\n']) expect(DONE.test(chunk)).toBe(true);
  });
});
