// A scripted Anthropic Messages server: `POST /v1/messages` answered with the real SSE events
// (message_start, content_block_start/delta/stop with text_delta and input_json_delta,
// message_delta with stop_reason and usage, message_stop, ping), `GET /v1/models`, and the
// API's error bodies ({type: "error", error: {type, message}}) for each error mode. A reply may
// also be cut off after its tool calls (`cutAfterCalls`).

import { estimateTokens, json, pieces, readBody, scriptRequest, sleep, startScriptedServer } from './wire.mjs';

/** Anthropic's error types and wording, by the `error` a reply names. */
const ERRORS = {
  auth: [401, 'authentication_error', 'invalid x-api-key'],
  not_found: [404, 'not_found_error', 'model: claude-nonexistent'],
  rate_limit: [429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
  overloaded: [529, 'overloaded_error', 'Overloaded'],
  context: [400, 'invalid_request_error', 'prompt is too long: 5210 tokens > 4000 maximum'],
  tools: [400, 'invalid_request_error', 'tools: this model does not support tool use'],
  server: [500, 'api_error', 'Internal server error'],
};

export function anthropicError(kind) {
  const [status, type, message] = ERRORS[kind];
  return { status, body: { type: 'error', error: { type, message } } };
}

/** Anthropic content (string or blocks) → the OpenAI-like messages scripts read. */
function normalize(body) {
  const out = [];
  const system = typeof body.system === 'string' ? body.system : (body.system ?? []).map((b) => b.text).join('\n');
  if (system) out.push({ role: 'system', content: system });
  for (const m of body.messages ?? []) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (m.role === 'user') {
      for (const b of blocks.filter((b) => b.type === 'tool_result')) {
        const content = typeof b.content === 'string' ? b.content : (b.content ?? []).map((c) => c.text ?? '').join('');
        const images = (Array.isArray(b.content) ? b.content : [])
          .filter((c) => c.type === 'image' && c.source?.type === 'base64')
          .map((c) => ({ mediaType: c.source.media_type, data: c.source.data, callId: b.tool_use_id }));
        out.push({ role: 'tool', tool_call_id: b.tool_use_id, content, is_error: b.is_error, ...(images.length ? { images } : {}) });
      }
      const text = blocks.filter((b) => b.type === 'text').map((b) => b.text).join('');
      // Images outside tool results (prompted tool calls put them after the result text).
      const images = blocks.filter((b) => b.type === 'image' && b.source?.type === 'base64').map((b) => `data:${b.source.media_type};base64,${b.source.data}`);
      if (images.length) out.push({ role: 'user', content: [{ type: 'text', text }, ...images.map((url) => ({ type: 'image_url', image_url: { url } }))] });
      else if (text) out.push({ role: 'user', content: text });
    } else {
      const calls = blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, function: { name: b.name, arguments: JSON.stringify(b.input) } }));
      out.push({ role: 'assistant', content: blocks.filter((b) => b.type === 'text').map((b) => b.text).join(''), ...(calls.length ? { tool_calls: calls } : {}) });
    }
  }
  return out;
}

/**
 * @param {{ port?: number, script?: any, apiKey?: string, contextLimit?: number,
 *   models?: Array<{ id: string, display_name?: string }> }} [options]
 */
export function startAnthropicServer(options = {}) {
  return startScriptedServer(options, async (req, res, url, ctx) => {
    const keyOk = !options.apiKey || req.headers['x-api-key'] === options.apiKey;
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      if (!keyOk) return sendError(res, 'auth');
      const models = options.models ?? [{ id: 'claude-scripted', display_name: 'Claude Scripted' }];
      return json(res, 200, { data: models.map((m) => ({ type: 'model', created_at: '2026-01-01T00:00:00Z', ...m })), has_more: false, first_id: models[0]?.id, last_id: models.at(-1)?.id });
    }
    if (req.method !== 'POST' || url.pathname !== '/v1/messages') {
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `No route ${req.method} ${url.pathname}` } });
    }
    const body = JSON.parse(await readBody(req));
    const request = scriptRequest(body, normalize(body), (body.tools ?? []).map((t) => t.name), req.headers);
    const reply = await ctx.run(request);
    if (!keyOk) return sendError(res, 'auth');
    if (options.contextLimit && estimateTokens({ system: body.system, messages: body.messages, tools: body.tools }) > options.contextLimit) {
      return sendError(res, 'context');
    }
    if (reply.error) return sendError(res, reply.error);
    if (reply.status >= 400) return json(res, reply.status, reply.errorBody ?? anthropicError('server').body);

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // `delayMs` paces the events; none after the last (the answer ends with it, as the API's do).
    const send = async (event, data) => {
      res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
      request.lastByteAt = performance.now();
      if (reply.delayMs && event !== 'message_stop') await sleep(reply.delayMs);
    };
    const id = `msg_${ctx.nextId()}`;
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    await send('message_start', {
      message: { id, type: 'message', role: 'assistant', content: [], model: body.model, stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.prompt_tokens, output_tokens: 1, ...cacheUsage(usage) } },
    });
    await send('ping', {});
    let index = 0;
    if (reply.text) {
      await send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const piece of pieces(reply.text, reply.chunkSize)) await send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      if (reply.disconnect) {
        await sleep(50);
        res.socket?.destroy();
        return;
      }
      await send('content_block_stop', { index });
      index++;
    }
    if (reply.streamError) {
      const [, type, message] = ERRORS[reply.streamError];
      res.write(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`);
      res.end();
      return;
    }
    if (reply.malformed) {
      res.write('event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_de\n\n');
      res.write('event: message_stop\ndata: not json at all\n\n');
      res.end();
      return;
    }
    for (const call of reply.toolCalls ?? []) {
      const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
      await send('content_block_start', { index, content_block: { type: 'tool_use', id: call.id ?? `toolu_${ctx.nextId()}`, name: call.name, input: {} } });
      const half = Math.ceil(args.length / 2);
      for (const piece of [args.slice(0, half), args.slice(half)]) {
        if (piece) await send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
      await send('content_block_stop', { index });
      index++;
    }
    if (reply.cutAfterCalls) {
      // The calls are complete, then the connection is cut: no message_delta, no message_stop.
      await sleep(50);
      res.socket?.destroy();
      return;
    }
    await send('message_delta', {
      delta: { stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.completion_tokens },
    });
    await send('message_stop', {});
    res.end();
  }, (port) => `http://127.0.0.1:${port}/v1`);
}

/**
 * The prompt cache's fields of `message_start`'s usage, where the reply names them: Anthropic
 * counts them apart from `input_tokens` (the tokens read without the cache).
 */
function cacheUsage(usage) {
  const out = {};
  if (usage.cache_read_input_tokens !== undefined) out.cache_read_input_tokens = usage.cache_read_input_tokens;
  if (usage.cache_creation_input_tokens !== undefined) out.cache_creation_input_tokens = usage.cache_creation_input_tokens;
  return out;
}

function sendError(res, kind) {
  const { status, body } = anthropicError(kind);
  json(res, status, body);
}
