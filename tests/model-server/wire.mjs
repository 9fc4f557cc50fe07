// Plumbing shared by the scripted provider servers (anthropic.mjs, gemini.mjs, ollama.mjs): an
// http server on 127.0.0.1 whose answers come from a script, like server.mjs. Each server turns
// its provider's request into the OpenAI-like shape the scripts read (messages with roles
// system/user/assistant/tool, `toolNames`), so one script drives any provider.

import http from 'node:http';
import { defaultScript, scriptView } from './server.mjs';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function cors(res) {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-allow-headers', '*');
  res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
}

export function json(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

export function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A rough token count (4 characters a token), as the context-limit option measures prompts. */
export function estimateTokens(value) {
  return Math.ceil(JSON.stringify(value ?? '').length / 4);
}

/** Splits a string in pieces of `size` characters (the text deltas a stream sends). */
export function pieces(text, size = 12) {
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * Starts a scripted server. `route(req, res, url, ctx)` handles one request; `ctx.run(request)`
 * records a normalized request and returns the script's reply.
 * @param {{ port?: number, script?: import('./server.mjs').Script }} options
 * @param {(req: http.IncomingMessage, res: http.ServerResponse, url: URL, ctx: any) => Promise<void>} route
 * @param {(port: number) => string} urlOf
 */
export async function startScriptedServer(options, route, urlOf) {
  let script = options.script ?? defaultScript;
  const requests = [];
  const sockets = new Set();
  let counter = 0;
  const ctx = {
    nextId: () => ++counter,
    async run(request) {
      requests.push(request);
      return script(request);
    },
  };
  const server = http.createServer(async (req, res) => {
    cors(res);
    if (req.method === 'OPTIONS') {
      res.writeHead(204);
      res.end();
      return;
    }
    try {
      await route(req, res, new URL(req.url ?? '/', 'http://x'), ctx);
    } catch (error) {
      if (!res.headersSent) json(res, 500, { error: { message: `scripted server failed: ${error?.message ?? error}` } });
      else res.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    port,
    url: urlOf(port),
    requests,
    setScript(next) {
      const previous = script;
      script = next;
      return previous;
    },
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

/** The normalized request a script reads, from OpenAI-like messages and the tool names. */
export function scriptRequest(body, messages, toolNames, headers) {
  return {
    body,
    messages,
    tools: body.tools ?? [],
    toolNames,
    ...scriptView(messages),
    headers,
    receivedAt: performance.now(),
  };
}
