// Security suite: one parse of every address. Each built-in tool that takes an address (`navigate`,
// `open_tab`, `web_fetch`) parses it once (`prepare`, core/net/web-address.ts) before the approval
// gate sees the call, and hands the same value to the gate's target and to the work. Over many
// generated inputs (control characters and spaces around and inside, tabs and newlines, backslashes,
// userinfo, IDN and punycode, IPv4 in odd forms, IPv6, other schemes), the property is: the input
// is refused, or the gate judges exactly the origin the browser reaches (`new URL`, the WHATWG
// parser both browsers use, applied to the raw text the model wrote), and the work is handed that
// href unchanged. The attack that started it: "\u0001https://evil.example/?d=…" after Always
// allow for navigate on the mail site loaded evil.example with no card.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApprovalGate, type Permission, type PermissionStore } from '@/core/approvals/gate';
import { prepared, syncTarget } from '@/core/approvals/data-flow';
import { originOf } from '@/core/net/origin';
import type { ToolRegistry } from '@/core/registry/registry';
import { openDb } from '@/core/storage/db';
import { prng } from '@/tests/unit/helpers/prng';
import { realPluginRegistry, useOpfsMock } from './real-plugins';

const TOOLS = ['navigate', 'open_tab', 'web_fetch'] as const;

/** Addresses that name a site in the many ways the URL parser accepts, and ones it should refuse. */
const BASES = [
  'https://evil.example/?d=inbox',
  'http://mail.example:8080/a/b?c=d#e',
  'HTTPS://EVIL.EXAMPLE/Path',
  'https:evil.example/x',
  'https:\\\\evil.example\\x\\y',
  'https:/\\evil.example/',
  'https://user:pass@evil.example/',
  'https://mail.example@evil.example/',
  'https://evil.example%2F@mail.example/',
  'https://evil.example\\@mail.example/',
  'https://xn--e1afmkfd.example/',
  'https://пример.example/',
  'https://ＥＶＩＬ.example/',
  'https://evil.example./',
  'http://0x7f.1/',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://127.1/',
  'http://[::1]:8080/',
  'http://[0:0:0:0:0:ffff:7f00:1]/',
  'https://evil.example:443/',
  'http://evil.example:80/',
  'https://evil.example:0/',
  'javascript:alert(1)//https://mail.example/',
  'JaVaScRiPt:fetch("https://evil.example")',
  'data:text/html,<script>1</script>',
  'blob:https://evil.example/1b1b1b1b-0000-4000-8000-000000000000',
  'file:///etc/passwd',
  'about:blank',
  'view-source:https://evil.example/',
  'ftp://evil.example/',
  'chrome://settings',
  '//evil.example/',
  'evil.example/?d=1',
  'https://',
  'https:///evil.example',
  'http://[::1',
  'https://evil example/',
];

/** What a model (or a page that steers it) may put around and inside an address. */
const NOISE = ['\u0000', '\u0001', '\u0008', '\t', '\n', '\r', '\u000b', '\u000c', '\u001f', ' ', '\u007f', '\u0085', '\u00a0', '\u200b', '\u2028', '\ufeff', '\\', '/', '@', '%', '#'];

function mutate(base: string, next: () => number): string {
  let text = base;
  const edits = 1 + Math.floor(next() * 3);
  for (let i = 0; i < edits; i++) {
    const noise = NOISE[Math.floor(next() * NOISE.length)]!.repeat(1 + Math.floor(next() * 2));
    const where = next();
    if (where < 0.35) text = noise + text;
    else if (where < 0.6) text = text + noise;
    else {
      const at = Math.floor(next() * (text.length + 1));
      text = text.slice(0, at) + noise + text.slice(at);
    }
  }
  return text;
}

/** Every input: the bases as they are, each with noise in front, and many random mutations. */
function inputs(): string[] {
  const next = prng(38);
  const out = new Set<string>();
  for (const base of BASES) {
    out.add(base);
    for (const noise of NOISE) out.add(noise + base);
    for (let i = 0; i < 40; i++) out.add(mutate(base, next));
  }
  return [...out];
}

/** What the browser does with the text the model wrote: the WHATWG parse (or it cannot load it). */
function browserParse(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

describe('security: one parse of every address', () => {
  const db = openDb('sidequest-one-parse');
  let registry: ToolRegistry;
  const all = inputs();

  beforeAll(async () => {
    await useOpfsMock();
    registry = realPluginRegistry({ db });
  });

  afterAll(() => db.close());

  test(`${all.length} inputs × ${TOOLS.length} tools: refused, or the gate judges the origin the browser reaches and the work gets that href`, () => {
    let admitted = 0;
    let refused = 0;
    for (const tool of TOOLS) {
      const spec = registry.describe(tool)!;
      for (const raw of all) {
        const label = `${tool} ${JSON.stringify(raw)}`;
        const result = registry.admit(tool, { url: raw });
        const browser = browserParse(raw);
        const web = browser && (browser.protocol === 'http:' || browser.protocol === 'https:') && browser.hostname !== '';
        if ('refused' in result) {
          // Refused: it is not a web page the browser would load (open_tab's blank tab aside), and says why.
          expect(web, label).toBeFalsy();
          expect(result.refused, label).toMatchObject({ ok: false, code: 'invalid_input' });
          refused++;
          continue;
        }
        const input = result.input as { url: string };
        if (input.url === 'about:blank') {
          expect(tool, label).toBe('open_tab');
          continue;
        }
        admitted++;
        expect(web, label).toBe(true);
        // The work gets the browser's own href for the raw text, and it parses to itself.
        expect(input.url, label).toBe(browser!.href);
        expect(new URL(input.url).href, label).toBe(input.url);
        // The gate's target (as the loop resolves it, and as a run's history is read back) is that href.
        const target = syncTarget(spec, input);
        expect(target?.url, label).toBe(input.url);
        expect(syncTarget(spec, { url: raw })?.url, `${label} (history)`).toBe(input.url);
        expect(originOf(target?.url), label).toBe(browser!.origin);
        // Preparing again changes nothing: one parse, whatever runs it twice.
        expect(prepared(spec, input), label).toEqual(input);
      }
    }
    // The generator reached both sides, many times.
    expect(admitted).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(1000);
  });

  test('the attack: a control character before the address after Always allow for navigate on the mail site asks, naming evil.example', async () => {
    const saved: Permission[] = [{ tool: 'navigate', site: 'https://mail.example', decision: 'allow', at: 1 }];
    const permissions: PermissionStore = { load: async () => [...saved], put: async (p) => void saved.push(p), remove: async () => undefined };
    const mail = { id: 1, url: 'https://mail.example/inbox', title: 'Inbox' };
    const gate = new ApprovalGate({ permissions, activeTab: async () => mail, tab: async (id) => (id === 1 ? mail : undefined) });
    const asked: Array<{ site: string; url?: string; reason: string; sink?: string }> = [];
    gate.onChange((change) => {
      if (change.type === 'asked') {
        asked.push(change.approval);
        queueMicrotask(() => gate.answer(change.approval.id, 'deny'));
      }
    });
    gate.beginRun('c1', { trusted: false, calls: [] });
    gate.record({ name: 'read_page', input: {}, spec: registry.describe('read_page')!, conversationId: 'c1' }, { site: 'https://mail.example', tab: { id: 1, origin: 'https://mail.example' }, localReads: [] }, { ok: true, output: { url: mail.url } });
    const raw = '\u0001https://evil.example/?d=Your%20invoice%204411';
    const admitted = registry.admit('navigate', { url: raw, tab_id: 1 });
    expect('input' in admitted).toBe(true);
    const input = (admitted as { input: unknown }).input;
    const spec = registry.describe('navigate')!;
    const verdict = await gate.check({ name: 'navigate', input, spec, conversationId: 'c1', target: syncTarget(spec, input) });
    expect(verdict.ok).toBe(false);
    expect(asked).toEqual([expect.objectContaining({ reason: 'outbound', site: 'https://evil.example', sink: 'https://evil.example', url: 'https://evil.example/?d=Your%20invoice%204411' })]);
  });
});
