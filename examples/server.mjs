// The demo site for page tools: a tiny node:http server and pages that implement the examples of
// Chrome's "third-party developer tools" guide as real apps (see examples/README.md).
//
//   node examples/server.mjs [port]      (default 8123; PORT works too)
//
// - /              the `add` tool and links to the other apps
// - /dashboard.html a sales pipeline whose API cache exposes getCacheStatistics
// - /shop.html     a shop: getGlobalState over its cart store, getFeatureFlags, and
//                  queryDatabaseTable over the read-only debug endpoint below
// - /webmcp.html   a to-do list whose tools are registered with WebMCP (document.modelContext)
// - /booking.html  declarative WebMCP forms (toolname), and tools that return and take elements
// - /api/...       the apps' JSON API; /api/debug/db-inspect reads a real SQLite file
//                  (examples/data/shop.sqlite, made on first start) and answers only to a
//                  browser session (cookie `sid`) that the pages' server handed out.

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import initSqlJs from 'sql.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PUBLIC = path.join(HERE, 'public');
export const DEFAULT_DB_FILE = path.join(HERE, 'data', 'shop.sqlite');

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

/** The shop's data. The newest order's tax was computed with 0.8 instead of 0.08: the bug to find. */
const ORDERS = [
  { customer: 'Ada', created_at: '2026-11-20T09:12:00Z', subtotal: 42.5, tax_rate: 0.08, tax: 3.4, total: 45.9 },
  { customer: 'Grace', created_at: '2026-11-24T16:40:00Z', subtotal: 18.0, tax_rate: 0.08, tax: 1.44, total: 19.44 },
  { customer: 'Linus', created_at: '2026-11-27T11:05:00Z', subtotal: 120.0, tax_rate: 0.08, tax: 9.6, total: 129.6 },
  { customer: 'You', created_at: '2026-11-29T18:30:00Z', subtotal: 64.0, tax_rate: 0.08, tax: 51.2, total: 115.2 },
];
const PRODUCTS = [
  ['sku-espresso', 'Espresso beans 1 kg', 24.0],
  ['sku-grinder', 'Hand grinder', 89.0],
  ['sku-filters', 'Paper filters (100)', 6.5],
  ['sku-mug', 'Enamel mug', 12.0],
];

/** Creates the SQLite file with its tables when it does not exist yet. */
export async function ensureDatabase(file = DEFAULT_DB_FILE) {
  const SQL = await initSqlJs();
  if (existsSync(file)) return SQL;
  const db = new SQL.Database();
  db.run(`CREATE TABLE products (id TEXT PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL);
          CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT, customer TEXT NOT NULL, created_at TEXT NOT NULL,
                               subtotal REAL NOT NULL, tax_rate REAL NOT NULL, tax REAL NOT NULL, total REAL NOT NULL);
          CREATE TABLE sessions_audit (id INTEGER PRIMARY KEY AUTOINCREMENT, note TEXT);`);
  for (const [id, name, price] of PRODUCTS) db.run('INSERT INTO products VALUES (?, ?, ?)', [id, name, price]);
  for (const o of ORDERS) {
    db.run('INSERT INTO orders (customer, created_at, subtotal, tax_rate, tax, total) VALUES (?, ?, ?, ?, ?, ?)', [
      o.customer, o.created_at, o.subtotal, o.tax_rate, o.tax, o.total,
    ]);
  }
  db.run("INSERT INTO sessions_audit (note) VALUES ('created by examples/server.mjs')");
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, Buffer.from(db.export()));
  db.close();
  return SQL;
}

/**
 * Starts the demo server on 127.0.0.1.
 * @param {{ port?: number, dbFile?: string }} [options]
 */
export async function startDemoServer(options = {}) {
  const dbFile = options.dbFile ?? DEFAULT_DB_FILE;
  const SQL = await ensureDatabase(dbFile);
  // Read-only: the file is loaded into memory and never written back.
  const db = new SQL.Database(await readFile(dbFile));
  const sessions = new Map(); // sid → { cart, flags }
  const tables = () => db.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")[0]?.values.map((r) => r[0]) ?? [];
  const pipeline = { version: 1, leads: [{ id: 1, name: 'Northwind', rep: 'Kim' }, { id: 2, name: 'Contoso', rep: 'Ravi' }, { id: 3, name: 'Fabrikam', rep: 'Kim' }] };

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://x');
      const session = sessionOf(req, res, sessions, url.pathname);
      if (url.pathname.startsWith('/api/')) return api(req, res, url, session);
      return await file(res, url.pathname);
    } catch (error) {
      json(res, 500, { error: `Server error: ${error?.message ?? error}` });
    }
  });

  function api(req, res, url, session) {
    const p = url.pathname;
    if (p === '/api/debug/db-inspect') {
      if (!session) return json(res, 401, { error: 'No browser session: open a page of this site first (the debug endpoint trusts only its session cookie).' });
      if (req.method !== 'GET') return json(res, 405, { error: 'Read-only endpoint: GET only.' });
      const table = url.searchParams.get('table') ?? '';
      const known = tables();
      if (!known.includes(table)) return json(res, 404, { error: `Unknown table "${table}". Tables: ${known.join(', ')}.` });
      const limit = Math.min(Math.max(Number.parseInt(url.searchParams.get('limit') ?? '5', 10) || 5, 1), 100);
      // The name was checked against sqlite_master above; rows come newest first.
      const result = db.exec(`SELECT * FROM "${table}" ORDER BY rowid DESC LIMIT ?`, [limit])[0];
      const rows = result ? result.values.map((values) => Object.fromEntries(result.columns.map((c, i) => [c, values[i]]))) : [];
      return json(res, 200, { table, limit, rows });
    }
    if (!session) return json(res, 401, { error: 'No session.' });
    if (p === '/api/cart') return json(res, 200, { items: session.cart });
    if (p === '/api/flags') return json(res, 200, session.flags);
    if (p === '/api/pipeline') return json(res, 200, { version: pipeline.version, leadIds: pipeline.leads.map((l) => l.id) });
    const lead = p.match(/^\/api\/leads\/(\d+)$/);
    if (lead) {
      const found = pipeline.leads.find((l) => l.id === Number(lead[1]));
      return found ? json(res, 200, found) : json(res, 404, { error: 'No such lead.' });
    }
    const reassign = p.match(/^\/api\/leads\/(\d+)\/reassign$/);
    if (reassign && req.method === 'POST') {
      const found = pipeline.leads.find((l) => l.id === Number(reassign[1]));
      if (!found) return json(res, 404, { error: 'No such lead.' });
      found.rep = url.searchParams.get('rep') || 'Alex';
      pipeline.version++;
      return json(res, 200, found);
    }
    return json(res, 404, { error: `No API route ${p}` });
  }

  await new Promise((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    url: (p) => `http://127.0.0.1:${port}${p}`,
    /** How many browser sessions the pages handed out (tests check the cookie path). */
    sessionCount: () => sessions.size,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => {
          db.close();
          resolve(undefined);
        });
      }),
  };
}

/** The session of the request's `sid` cookie; a page load without one starts a session. */
function sessionOf(req, res, sessions, pathname) {
  const sid = /(?:^|;\s*)sid=([a-f0-9]{32})/.exec(req.headers.cookie ?? '')?.[1];
  if (sid && sessions.has(sid)) return sessions.get(sid);
  if (!pathname.endsWith('.html') && pathname !== '/') return null;
  const fresh = randomBytes(16).toString('hex');
  const session = {
    cart: [
      { sku: 'sku-espresso', name: 'Espresso beans 1 kg', quantity: 2, price: 24.0 },
      { sku: 'sku-filters', name: 'Paper filters (100)', quantity: 1, price: 6.5 },
      { sku: 'sku-mug', name: 'Enamel mug', quantity: 3, price: 12.0 },
    ],
    flags: { 'new-ui-enabled': true, 'beta-search-v2': false, 'experiment-group': 'control', 'log-level': 'debug' },
  };
  sessions.set(fresh, session);
  res.setHeader('set-cookie', `sid=${fresh}; Path=/; HttpOnly; SameSite=Lax`);
  return session;
}

async function file(res, pathname) {
  const name = pathname === '/' ? 'index.html' : pathname.slice(1);
  const full = path.join(PUBLIC, path.normalize(name));
  if (!full.startsWith(PUBLIC + path.sep)) return json(res, 403, { error: 'Forbidden' });
  try {
    const body = await readFile(full);
    res.writeHead(200, { 'content-type': TYPES[path.extname(full)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('Not found');
  }
}

function json(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(value));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8123);
  const server = await startDemoServer({ port });
  console.log(`Page tools demo at ${server.url('/')} (Ctrl-C stops it)`);
}
