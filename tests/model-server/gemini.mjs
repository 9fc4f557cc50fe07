// A scripted Google Gemini server: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`
// answered as the API streams (each `data:` a GenerateContentResponse: candidates[0].content.parts
// with text or a whole functionCall, finishReason and usageMetadata on the last), `GET
// /v1beta/models` (and one model), and the API's error bodies ({error: {code, message, status}}).

import { estimateTokens, json, pieces, readBody, scriptRequest, sleep, startScriptedServer } from './wire.mjs';

const ERRORS = {
  auth: [400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }]],
  not_found: [404, 'NOT_FOUND', 'models/gemini-nonexistent is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.'],
  rate_limit: [429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan and billing details.'],
  overloaded: [503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'],
  context: [400, 'INVALID_ARGUMENT', 'The input token count (5210) exceeds the maximum number of tokens allowed (4000).'],
  tools: [400, 'INVALID_ARGUMENT', 'Function calling is not enabled for this model.'],
  signature: [400, 'INVALID_ARGUMENT', 'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:tool` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.'],
  server: [500, 'INTERNAL', 'An internal error has occurred.'],
};

export function geminiError(kind) {
  const [code, status, message, details] = ERRORS[kind];
  return { status: code, body: { error: { code, message, status, ...(details ? { details } : {}) } } };
}

function normalize(body) {
  const out = [];
  const system = (body.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('\n');
  if (system) out.push({ role: 'system', content: system });
  for (const c of body.contents ?? []) {
    const parts = c.parts ?? [];
    if (c.role === 'model') {
      const calls = parts
        .filter((p) => p.functionCall)
        .map((p) => ({ function: { name: p.functionCall.name, arguments: JSON.stringify(p.functionCall.args ?? {}) }, ...(p.thoughtSignature ? { thoughtSignature: p.thoughtSignature } : {}) }));
      out.push({ role: 'assistant', content: parts.map((p) => p.text ?? '').join(''), ...(calls.length ? { tool_calls: calls } : {}) });
    } else {
      const image = (p) => ({ mediaType: p.inlineData.mimeType, data: p.inlineData.data });
      const responses = parts.filter((p) => p.functionResponse);
      for (const p of responses) {
        const images = (p.functionResponse.parts ?? []).filter((q) => q.inlineData).map(image);
        out.push({ role: 'tool', name: p.functionResponse.name, content: JSON.stringify(p.functionResponse.response), ...(images.length ? { images } : {}) });
      }
      // Gemini 2.x: images beside the function responses (with a line of text the SDK adds).
      const beside = parts.filter((p) => p.inlineData);
      if (responses.length && beside.length) (out.at(-1).images ??= []).push(...beside.map(image));
      const text = parts.filter((p) => !(responses.length && /^Tool executed successfully and returned this/.test(p.text ?? ''))).map((p) => p.text ?? '').join('');
      if (beside.length && !responses.length) out.push({ role: 'user', content: [{ type: 'text', text }, ...beside.map((p) => ({ type: 'image_url', image_url: { url: `data:${p.inlineData.mimeType};base64,${p.inlineData.data}` } }))] });
      else if (text) out.push({ role: 'user', content: text });
    }
  }
  return out;
}

/** Gemini 3's check: every model turn's first function call carries its thought signature (or the documented skip value). */
function unsigned(body) {
  return (body.contents ?? []).some((c) => {
    if (c.role !== 'model') return false;
    const first = (c.parts ?? []).find((p) => p.functionCall);
    return first && typeof first.thoughtSignature !== 'string';
  });
}

/**
 * With `signatures`, the server behaves like a Gemini 3 model: each function call it sends has a
 * `thoughtSignature` (the reply's `thoughtSignature`, else one made up), and a request whose model
 * turns carry a function call without one is refused as Gemini 3 refuses it.
 * @param {{ port?: number, script?: any, apiKey?: string, contextLimit?: number, signatures?: boolean,
 *   models?: Array<{ name: string, inputTokenLimit?: number }> }} [options]
 */
export function startGeminiServer(options = {}) {
  const models = () => options.models ?? [{ name: 'models/gemini-scripted', displayName: 'Gemini Scripted', inputTokenLimit: 1048576 }];
  return startScriptedServer(options, async (req, res, url, ctx) => {
    const key = req.headers['x-goog-api-key'] ?? url.searchParams.get('key');
    const keyOk = !options.apiKey || key === options.apiKey;
    if (req.method === 'GET' && url.pathname === '/v1beta/models') {
      if (!keyOk) return sendError(res, 'auth');
      return json(res, 200, { models: models().map((m) => ({ supportedGenerationMethods: ['generateContent', 'countTokens'], ...m })) });
    }
    const one = /^\/v1beta\/(models\/[^/:]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      if (!keyOk) return sendError(res, 'auth');
      const model = models().find((m) => m.name === one[1]);
      return model ? json(res, 200, model) : sendError(res, 'not_found');
    }
    const match = /^\/v1beta\/models\/([^/:]+):streamGenerateContent$/.exec(url.pathname);
    if (req.method !== 'POST' || !match) return json(res, 404, { error: { code: 404, message: `No route ${req.method} ${url.pathname}`, status: 'NOT_FOUND' } });
    const body = JSON.parse(await readBody(req));
    const toolNames = (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    const request = scriptRequest(body, normalize(body), toolNames, req.headers);
    const reply = await ctx.run(request);
    if (!keyOk) return sendError(res, 'auth');
    if (options.contextLimit && estimateTokens({ s: body.systemInstruction, c: body.contents, t: body.tools }) > options.contextLimit) return sendError(res, 'context');
    if (options.signatures && unsigned(body)) return sendError(res, 'signature');
    if (reply.error) return sendError(res, reply.error);
    if (reply.status >= 400) return json(res, reply.status, reply.errorBody ?? geminiError('server').body);

    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    const send = async (parts, last) => {
      const chunk = {
        candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
        usageMetadata: { promptTokenCount: usage.prompt_tokens, ...(usage.prompt_tokens_details && { cachedContentTokenCount: usage.prompt_tokens_details.cached_tokens }), ...(last ? { candidatesTokenCount: usage.completion_tokens, totalTokenCount: usage.prompt_tokens + usage.completion_tokens } : { totalTokenCount: usage.prompt_tokens }) },
        modelVersion: match[1],
        responseId: `resp-${ctx.nextId()}`,
      };
      res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
      request.lastByteAt = performance.now();
      // `delayMs` paces the chunks; none after the last (the answer ends with it).
      if (reply.delayMs && !last) await sleep(reply.delayMs);
    };
    const texts = pieces(reply.text ?? '', reply.chunkSize);
    const calls = (reply.toolCalls ?? []).map((c, i) => {
      const signature = c.thoughtSignature ?? (options.signatures && i === 0 ? Buffer.from(`signature of ${c.name} #${ctx.nextId()}`).toString('base64') : undefined);
      return { functionCall: { name: c.name, args: typeof c.arguments === 'string' ? JSON.parse(c.arguments) : c.arguments ?? {} }, ...(signature ? { thoughtSignature: signature } : {}) };
    });
    if (reply.malformed) {
      res.write('data: {"candidates": [{"content": {"parts": [{"text": "Hel\r\n\r\n');
      res.end();
      return;
    }
    for (const [i, t] of texts.entries()) {
      await send([{ text: t }], !calls.length && i === texts.length - 1);
      if (reply.disconnect && i === texts.length - 1) {
        await sleep(50);
        res.socket?.destroy();
        return;
      }
    }
    // Gemini sends a function call whole, in one part.
    if (calls.length) await send(calls, true);
    else if (!texts.length) await send([{ text: '' }], true);
    res.end();
  }, (port) => `http://127.0.0.1:${port}/v1beta`);
}

function sendError(res, kind) {
  const { status, body } = geminiError(kind);
  json(res, status, body);
}
