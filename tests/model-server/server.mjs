// A scripted OpenAI-compatible Chat Completions server for tests and benchmarks.
//
// It speaks the real protocol over node:http: `POST /v1/chat/completions` with server-sent events
// (content deltas, tool-call deltas split across chunks, usage, [DONE]) or plain JSON when
// `stream` is false, and `GET /v1/models`. What it answers is decided by a script: a function of
// the request that returns a reply. Replies can also fail in the ways real providers do (HTTP
// errors, a malformed stream, a dropped connection, an answer that never ends).

import http from 'node:http';

/**
 * @typedef {{ name: string, arguments?: object | string, id?: string, thoughtSignature?: string }} ScriptedToolCall
 * @typedef {{
 *   text?: string,
 *   toolCalls?: ScriptedToolCall[],
 *   status?: number,
 *   errorBody?: unknown,
 *   malformed?: boolean,
 *   disconnect?: boolean,
 *   hang?: boolean,
 *   chunkSize?: number,
 *   delayMs?: number,
 *   chunks?: string[],
 *   charsPerSecond?: number,
 *   usage?: { prompt_tokens: number, completion_tokens: number, prompt_tokens_details?: { cached_tokens: number },
 *     cache_read_input_tokens?: number, cache_creation_input_tokens?: number },
 * }} Reply
 * @typedef {{
 *   body: any,
 *   messages: any[],
 *   tools: any[],
 *   toolNames: string[],
 *   last: any,
 *   lastUser: any,
 *   images: Array<{ mediaType: string, data: string, callId?: string }>,
 *   headers: http.IncomingHttpHeaders,
 *   receivedAt: number,
 *   lastByteAt?: number,
 *   chunkWrittenAt?: number[],
 * }} ScriptRequest
 * @typedef {(request: ScriptRequest) => Reply | Promise<Reply>} Script
 */

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The line before each image Sidequest moves out of a step's tool results (core/agent/tool-images.ts). */
const CARRIER_LINE = /^Image \d+ of \d+ returned by the call (\S+) \(/;

/**
 * The images a message carries, in one shape for every wire format: `{ mediaType, data, callId? }`
 * from Chat Completions `image_url` parts (`callId` from the line before each), Ollama's
 * `images`, or what a provider server put on a normalized tool message (`images`).
 */
export function messageImages(message) {
  if (!message) return [];
  if (message.role === 'tool') return message.images ?? [];
  const out = [];
  if (Array.isArray(message.content)) {
    let callId;
    for (const part of message.content) {
      if (part?.type === 'text') callId = CARRIER_LINE.exec(part.text)?.[1];
      const url = part?.type === 'image_url' ? part.image_url?.url : undefined;
      const match = typeof url === 'string' ? /^data:([^;]+);base64,(.*)$/s.exec(url) : null;
      if (match) out.push({ mediaType: match[1], data: match[2], ...(callId ? { callId } : {}) });
    }
  }
  if (Array.isArray(message.images)) {
    const callIds = [...contentText(message).matchAll(new RegExp(CARRIER_LINE.source, 'gm'))].map((m) => m[1]);
    message.images.forEach((data, i) => out.push({ mediaType: data.startsWith('/9j/') ? 'image/jpeg' : 'image/png', data, ...(callIds[i] ? { callId: callIds[i] } : {}) }));
  }
  return out;
}

/** A user message that only carries the images of the step's tool results (what scripts skip as `last`/`lastUser`). */
export function isImageCarrier(message) {
  return message?.role === 'user' && messageImages(message).length > 0 && CARRIER_LINE.test(contentText(message).trim());
}

/**
 * What a script reads of the messages: `last` and `lastUser` skip image carriers (so a tool
 * result is still `last`), and `images` are those of the latest step (after the last assistant message).
 */
export function scriptView(messages) {
  const real = messages.filter((m) => !isImageCarrier(m));
  const step = messages.slice(messages.findLastIndex((m) => m.role === 'assistant') + 1);
  return {
    last: real.at(-1),
    lastUser: [...real].reverse().find((m) => m.role === 'user'),
    images: step.flatMap((m) => messageImages(m)),
  };
}

/** The text of a message's content, whatever its shape. */
export function contentText(message) {
  if (!message) return '';
  const { content } = message;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : p.text ?? '')).join('');
  return '';
}

/**
 * The default script: a tiny deterministic "model". Asked about tabs it calls `list_tabs`; given
 * a tool result it answers by quoting it; otherwise it echoes the user.
 * @type {Script}
 */
export const defaultScript = (req) => {
  if (req.last?.role === 'tool') {
    return { text: `The tool answered:\n\n\`\`\`json\n${contentText(req.last)}\n\`\`\`` };
  }
  const text = contentText(req.lastUser);
  if (/\btabs?\b/i.test(text) && req.toolNames.includes('list_tabs')) {
    return { toolCalls: [{ name: 'list_tabs', arguments: {} }] };
  }
  return { text: `You said: ${text}` };
};

/**
 * Starts the server on 127.0.0.1.
 * @param {{ port?: number, script?: Script, apiKey?: string }} [options]
 */
export async function startModelServer(options = {}) {
  /** @type {Script} */
  let script = options.script ?? defaultScript;
  /** @type {ScriptRequest[]} */
  const requests = [];
  let callCounter = 0;
  const sockets = new Set();

  const server = http.createServer(async (req, res) => {
    try {
      await handle(req, res);
    } catch (error) {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `scripted server failed: ${error?.message ?? error}` } }));
      } else res.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req, res) {
    cors(res);
    if (req.method === 'OPTIONS') {
      res.writeHead(204);
      res.end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return json(res, 401, { error: { message: 'Incorrect API key provided.' } });
      }
      return json(res, 200, { object: 'list', data: [{ id: 'scripted-model', object: 'model' }] });
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      return json(res, 404, { error: { message: `No route ${req.method} ${url.pathname}` } });
    }
    const receivedAt = performance.now();
    const body = JSON.parse(await readBody(req));
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const tools = Array.isArray(body.tools) ? body.tools : [];
    /** @type {ScriptRequest} */
    const request = {
      body,
      messages,
      tools,
      toolNames: tools.map((t) => t.function?.name).filter(Boolean),
      ...scriptView(messages),
      headers: req.headers,
      receivedAt,
    };
    requests.push(request);
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return json(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } });
    }
    const reply = await script(request);
    if (reply.status && reply.status >= 400) {
      return json(res, reply.status, reply.errorBody ?? { error: { message: `Scripted error ${reply.status}` } });
    }
    if (body.stream === false || body.stream === undefined) return json(res, 200, completion(body, reply));
    await stream(res, body, reply, request);
  }

  function completion(body, reply) {
    const toolCalls = (reply.toolCalls ?? []).map((c) => toolCall(c));
    return {
      id: `chatcmpl-${++callCounter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply.text ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
          finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
        },
      ],
      usage: reply.usage ?? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
  }

  function toolCall(c) {
    return {
      id: c.id ?? `call_${++callCounter}`,
      type: 'function',
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
      // Gemini's OpenAI-compatible endpoint signs calls this way.
      ...(c.thoughtSignature ? { extra_content: { google: { thought_signature: c.thoughtSignature } } } : {}),
    };
  }

  async function stream(res, body, reply, request) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const id = `chatcmpl-${++callCounter}`;
    const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model };
    const send = async (payload) => {
      res.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
      request.lastByteAt = performance.now();
      if (reply.delayMs) await sleep(reply.delayMs);
    };
    const chunk = (delta, finish = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });

    await send(chunk({ role: 'assistant', content: '' }));
    if (reply.malformed) {
      await send('{"id": "broken", "choices": [ {"delta": {"content": "Hel');
      await send('this is not json at all');
      res.end();
      return;
    }
    const size = reply.chunkSize ?? 12;
    const text = reply.text ?? '';
    if (reply.chunks) {
      // Explicit pieces, optionally paced on an absolute schedule (piece i leaves when the pieces
      // before it have taken their share of time at `charsPerSecond`, so timer lateness does not
      // add up). Each write's time is kept, in epoch milliseconds with sub-millisecond precision
      // (performance.timeOrigin + performance.now(), comparable with a page's on this machine).
      request.chunkWrittenAt = [];
      const start = performance.now();
      let sent = 0;
      for (const piece of reply.chunks) {
        if (reply.charsPerSecond) {
          const due = start + (sent / reply.charsPerSecond) * 1000;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
        }
        await send(chunk({ content: piece }));
        request.chunkWrittenAt.push(performance.timeOrigin + performance.now());
        sent += piece.length;
      }
    } else for (let i = 0; i < text.length; i += size) await send(chunk({ content: text.slice(i, i + size) }));
    if (reply.disconnect) {
      await sleep(50); // let what was written reach the client, then cut the connection
      res.socket?.destroy();
      return;
    }
    if (reply.hang) return; // Never finishes: the client has to stop it.
    const calls = (reply.toolCalls ?? []).map((c) => toolCall(c));
    for (const [index, call] of calls.entries()) {
      await send(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' }, ...(call.extra_content ? { extra_content: call.extra_content } : {}) }] }));
      const args = call.function.arguments;
      const half = Math.ceil(args.length / 2);
      for (const piece of [args.slice(0, half), args.slice(half)]) {
        if (piece) await send(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    }
    await send(chunk({}, calls.length ? 'tool_calls' : 'stop'));
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    await send({ ...base, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
    res.write('data: [DONE]\n\n');
    request.lastByteAt = performance.now();
    res.end();
  }

  await new Promise((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());

  return {
    port,
    /** The base URL to give the extension (ends in /v1). */
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Replaces the script; returns the previous one. @param {Script} next */
    setScript(next) {
      const previous = script;
      script = next;
      return previous;
    },
    /** Answers the next requests with these replies in order, then falls back to the default. @param {Reply[]} replies */
    queue(replies) {
      const pending = [...replies];
      script = (req) => (pending.length ? pending.shift() : defaultScript(req));
    },
    reset() {
      script = options.script ?? defaultScript;
      requests.length = 0;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

function cors(res) {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-allow-headers', '*');
  res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
}

function json(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// `node tests/model-server/server.mjs [port]` runs it by hand, with the default script.
if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startModelServer({ port: Number(process.argv[2] ?? 8788) });
  console.log(`Scripted model server at ${server.url}`);
}
