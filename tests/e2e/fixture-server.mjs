// Serves test pages on 127.0.0.1: a few fixed pages, any extra ones a test adds, folders of files
// (`dirs`: a path prefix → a folder, e.g. the TodoMVC builds in tests/fixtures/todomvc), and forms
// posted to it (recorded in `posts`, answered with a page that lists what arrived).
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

const PAGES = {
  '/alpha.html': {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html><head><title>Sidequest test page — Alpha</title></head>
<body><h1>Alpha</h1><p>A page for the end-to-end tests.</p></body></html>`,
  },
  '/beta.html': {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html><head><title>Sidequest test page — Beta</title></head>
<body><h1>Beta</h1><p>Another page.</p></body></html>`,
  },
};

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.ico': 'image/x-icon',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A file under one of `dirs`, or null (never outside the folder). */
async function fromDirs(dirs, pathname) {
  for (const [prefix, dir] of Object.entries(dirs)) {
    if (!pathname.startsWith(prefix)) continue;
    let rest = decodeURIComponent(pathname.slice(prefix.length));
    if (rest === '' || rest.endsWith('/')) rest += 'index.html';
    const file = path.resolve(dir, rest);
    if (!file.startsWith(path.resolve(dir) + path.sep)) return null;
    try {
      return { type: TYPES[path.extname(file)] ?? 'application/octet-stream', body: await readFile(file) };
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * @param {{ pages?: Record<string, { type: string, body: string, status?: number, headers?: Record<string,string> }>, dirs?: Record<string, string> }} [options]
 */
export async function startFixtureServer(options = {}) {
  const pages = { ...PAGES, ...options.pages };
  const dirs = { ...options.dirs };
  /** The paths asked for, in order. */
  const requests = [];
  /** Each form posted to the server (a path with no page of its own): its path and fields. */
  const posts = [];
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname);
    if (req.method === 'POST' && !pages[url.pathname]) {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const fields = [...new URLSearchParams(raw)];
      posts.push({ path: url.pathname, fields: Object.fromEntries(fields) });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>Received</title></head><body><h1>Received</h1><dl>${fields
        .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`)
        .join('')}</dl></body></html>`);
      return;
    }
    const page = pages[url.pathname] ?? (await fromDirs(dirs, url.pathname));
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(page.status ?? 200, { 'content-type': page.type, ...page.headers });
    res.end(page.body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    posts,
    url: (p) => `http://127.0.0.1:${port}${p}`,
    add(p, page) {
      pages[p] = page;
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
