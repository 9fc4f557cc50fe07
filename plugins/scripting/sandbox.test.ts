import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';
import { describe, expect, test } from 'vitest';
import { toJsonSafe } from '@/core/registry/json-safe';
import { DEFAULT_SANDBOX_LIMITS, Sandbox } from '@/plugins/scripting/sandbox';

const require = createRequire(import.meta.url);
const wasm = readFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'));
let loads = 0;
const load = async () => {
  loads++;
  return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule: await WebAssembly.compile(wasm) }));
};

describe('the QuickJS sandbox', () => {
  const sandbox = new Sandbox(load, { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 300 });

  test('an expression gives its value', async () => {
    expect(await sandbox.run('[1, 2, 3].map((x) => x * x).reduce((a, b) => a + b)')).toMatchObject({ ok: true, value: 14 });
    expect(await sandbox.run('6 * 7;')).toMatchObject({ ok: true, value: 42 });
  });

  test('a body gives what it returns, and may await', async () => {
    const out = await sandbox.run('const n = 10; let f = [0, 1];\nfor (let i = 2; i <= n; i++) f.push(f[i - 1] + f[i - 2]);\nreturn await Promise.resolve(f[n]);');
    expect(out).toMatchObject({ ok: true, value: 55 });
  });

  test('a body without return gives no value', async () => {
    expect(await sandbox.run('const x = 1;')).toEqual({ ok: true, logs: [] });
  });

  test('console output comes back as logs', async () => {
    const out = await sandbox.run('console.log("hello", {a: 1}); console.warn("careful"); return 1');
    expect(out).toEqual({ ok: true, value: 1, logs: ['hello {"a":1}', 'warn: careful'] });
  });

  test('a thrown error comes back with its message, a syntax error too', async () => {
    expect(await sandbox.run('throw new TypeError("bad input")')).toMatchObject({ ok: false, kind: 'thrown', error: 'TypeError: bad input' });
    expect(await sandbox.run('return (')).toMatchObject({ ok: false, kind: 'syntax' });
    expect(await sandbox.run('await Promise.reject(new RangeError("nope"))')).toMatchObject({ ok: false, error: 'RangeError: nope' });
  });

  test('no DOM, no network, no timers, no extension API', async () => {
    const out = await sandbox.run(
      'return [typeof document, typeof window, typeof fetch, typeof XMLHttpRequest, typeof setTimeout, typeof chrome, typeof browser, typeof WebSocket, typeof importScripts]',
    );
    expect(out).toMatchObject({ ok: true, value: Array(9).fill('undefined') });
  });

  test('an endless loop is stopped by the timeout, and the sandbox recovers', async () => {
    const before = Date.now();
    const out = await sandbox.run('while (true) {}');
    expect(out).toMatchObject({ ok: false, kind: 'timeout' });
    expect(Date.now() - before).toBeLessThan(5_000);
    const loop = await sandbox.run('await null; for (;;) {}');
    expect(loop).toMatchObject({ ok: false, kind: 'timeout' });
    expect(await sandbox.run('1 + 1')).toMatchObject({ ok: true, value: 2 });
  });

  test('runaway recursion is stopped', async () => {
    const deep = await sandbox.run('function f(n) { return f(n + 1) + 1 } return f(0)');
    expect(deep).toMatchObject({ ok: false });
    expect((deep as { error: string }).error).toMatch(/stack|recursion/i);
    expect(await sandbox.run('"still " + "here"')).toMatchObject({ ok: true, value: 'still here' });
  });

  test('a promise that never settles is reported, not waited on', async () => {
    expect(await sandbox.run('await new Promise(() => {})')).toMatchObject({ ok: false, kind: 'pending' });
  });

  test('runs do not share state', async () => {
    await sandbox.run('globalThis.leak = 42');
    expect(await sandbox.run('typeof leak')).toMatchObject({ ok: true, value: 'undefined' });
  });

  test('values follow the same JSON-safe rules as page tools', async () => {
    const code = `class Point { constructor() { this.x = 1 } }
      const o = { n: 1, s: 'a', f() {}, u: undefined, nan: NaN, inf: -Infinity, big: 10n, sym: Symbol('s'),
        arr: [1, undefined, () => 1], p: new Point(), d: new Date(0), m: new Map(), nested: { deep: [null] } };
      o.self = o; o.arr.push(o);
      return o`;
    const host = (() => {
      class Point { x = 1; }
      const o: Record<string, unknown> = { n: 1, s: 'a', f() {}, u: undefined, nan: NaN, inf: -Infinity, big: 10n, sym: Symbol('s'),
        arr: [1, undefined, () => 1], p: new Point(), d: new Date(0), m: new Map(), nested: { deep: [null] } };
      o.self = o;
      (o.arr as unknown[]).push(o);
      return toJsonSafe(o);
    })();
    const out = await sandbox.run(code);
    expect(out).toMatchObject({ ok: true });
    expect((out as { value: unknown }).value).toEqual(host);
  });

  test('a module that fails to load is loaded again on the next run', async () => {
    let fail = true;
    const flaky = new Sandbox(async () => {
      if (fail) {
        fail = false;
        throw new Error('network down');
      }
      return load();
    });
    await expect(flaky.run('1')).rejects.toThrow(/could not start: network down/);
    expect(await flaky.run('1')).toMatchObject({ ok: true, value: 1 });
    expect(loads).toBeGreaterThan(0);
  });
});
