// A scripted Ollama server speaking its native API: `POST /api/chat` streamed as NDJSON (one JSON
// object a line: message.content pieces, message.tool_calls with arguments as an object, a last
// line with done: true, done_reason and the eval counts), `GET /api/tags`, `POST /api/show`
// (model_info with "<arch>.context_length", capabilities), and its error bodies ({error: "…"}).
// With `noTools`, a model refuses `tools` the way Ollama does ("… does not support tools"); with
// `vision`, `/api/show` lists the "vision" capability (a model that reads `images`).

import { estimateTokens, json, pieces, readBody, scriptRequest, sleep, startScriptedServer } from './wire.mjs';

const ERRORS = {
  auth: [401, 'unauthorized'],
  not_found: [404, 'model "llama-nonexistent" not found, try pulling it first'],
  rate_limit: [429, 'too many requests'],
  overloaded: [503, 'server busy, please try again.  maximum pending requests exceeded'],
  context: [400, 'the input length exceeds the context length'],
  tools: [400, 'registry.ollama.ai/library/scripted-small:latest does not support tools'],
  server: [500, 'llama runner process has terminated: exit status 2'],
};

export function ollamaError(kind) {
  const [status, error] = ERRORS[kind];
  return { status, body: { error } };
}

/**
 * @param {{ port?: number, script?: any, apiKey?: string, contextLength?: number, noTools?: boolean,
 *   capabilities?: boolean, vision?: boolean, contextLimit?: number, models?: string[] }} [options]
 */
export function startOllamaServer(options = {}) {
  const shows = [];
  const server = startScriptedServer(options, async (req, res, url, ctx) => {
    const keyOk = !options.apiKey || req.headers.authorization === `Bearer ${options.apiKey}`;
    if (!keyOk) return sendError(res, 'auth');
    if (req.method === 'GET' && url.pathname === '/api/tags') {
      const names = options.models ?? ['scripted-model:latest'];
      return json(res, 200, { models: names.map((name) => ({ name, model: name, modified_at: '2026-01-01T00:00:00Z', size: 1, digest: 'x', details: { family: 'llama' } })) });
    }
    if (req.method === 'POST' && url.pathname === '/api/show') {
      const body = JSON.parse(await readBody(req));
      shows.push(body);
      return json(res, 200, {
        modelfile: '',
        details: { family: 'llama', parameter_size: '3.2B' },
        model_info: { 'general.architecture': 'llama', 'llama.context_length': options.contextLength ?? 131072, 'llama.embedding_length': 3072 },
        // Servers before 0.6 say nothing about capabilities (`capabilities: false`).
        ...(options.capabilities === false ? {} : { capabilities: [...(options.noTools ? ['completion'] : ['completion', 'tools']), ...(options.vision ? ['vision'] : [])] }),
      });
    }
    if (req.method !== 'POST' || url.pathname !== '/api/chat') return json(res, 404, { error: `404 page not found` });
    const body = JSON.parse(await readBody(req));
    const messages = (body.messages ?? []).map((m) => ({
      ...m,
      ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c) => ({ function: { name: c.function.name, arguments: JSON.stringify(c.function.arguments ?? {}) } })) } : {}),
    }));
    const request = scriptRequest(body, messages, (body.tools ?? []).map((t) => t.function?.name).filter(Boolean), req.headers);
    if (options.noTools && body.tools?.length) {
      ctx.run(request).catch(() => undefined);
      return sendError(res, 'tools');
    }
    const reply = await ctx.run(request);
    if (options.contextLimit && estimateTokens({ m: body.messages, t: body.tools }) > options.contextLimit) return sendError(res, 'context');
    if (reply.error) return sendError(res, reply.error);
    if (reply.status >= 400) return json(res, reply.status, reply.errorBody ?? ollamaError('server').body);

    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const line = async (value) => {
      res.write(`${JSON.stringify({ model: body.model, created_at: new Date().toISOString(), ...value })}\n`);
      request.lastByteAt = performance.now();
      // `delayMs` paces the lines; none after the last (the answer ends with it).
      if (reply.delayMs && !value.done) await sleep(reply.delayMs);
    };
    if (reply.malformed) {
      res.write('{"model": "x", "message": {"role": "assistant", "content": "Hel\n');
      res.write('this is not json at all\n');
      res.end();
      return;
    }
    for (const piece of pieces(reply.text ?? '', reply.chunkSize)) await line({ message: { role: 'assistant', content: piece }, done: false });
    if (reply.disconnect) {
      await sleep(50);
      res.socket?.destroy();
      return;
    }
    const calls = (reply.toolCalls ?? []).map((c) => ({ function: { name: c.name, arguments: typeof c.arguments === 'string' ? JSON.parse(c.arguments) : c.arguments ?? {} } }));
    if (calls.length) await line({ message: { role: 'assistant', content: '', tool_calls: calls }, done: false });
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    await line({
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: 'stop',
      total_duration: 1000,
      prompt_eval_count: usage.prompt_tokens,
      eval_count: usage.completion_tokens,
    });
    res.end();
  }, (port) => `http://127.0.0.1:${port}`);
  return server.then((s) => Object.assign(s, { shows }));
}

function sendError(res, kind) {
  const { status, body } = ollamaError(kind);
  json(res, status, body);
}
