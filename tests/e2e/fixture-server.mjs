// Serves test pages on 127.0.0.1: a few fixed pages, and any extra ones a test adds.
import http from 'node:http';

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

/** @param {{ pages?: Record<string, { type: string, body: string, status?: number, headers?: Record<string,string> }> }} [options] */
export async function startFixtureServer(options = {}) {
  const pages = { ...PAGES, ...options.pages };
  /** The paths asked for, in order. */
  const requests = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname);
    const page = pages[url.pathname];
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
    url: (p) => `http://127.0.0.1:${port}${p}`,
    add(p, page) {
      pages[p] = page;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
