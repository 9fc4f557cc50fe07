import { describe, expect, it } from 'vitest';
import { DataFlow } from '@/core/approvals/data-flow';
import { addBounded, RetainedSets, setBounded } from '@/core/retained';
import { ConversationStore, MAX_KNOWN_SEQ } from '@/core/storage/conversations';
import { openDb } from '@/core/storage/db';

describe('retained sets (core/retained.ts)', () => {
  it('counts each named set when asked, sorted, with the bounds of the bounded ones; a taken name throws; a disposer removes', () => {
    const sets = new RetainedSets();
    const map = new Map([[1, 'a']]);
    const dispose = sets.register('plugin/map', () => map.size);
    sets.register('core/cache', () => 3, 256);
    expect(() => sets.register('plugin/map', () => 0)).toThrow(/Two retained sets named "plugin\/map"/);
    map.set(2, 'b');
    expect(sets.counts()).toEqual({ counts: { 'core/cache': 3, 'plugin/map': 2 }, limits: { 'core/cache': 256 } });
    dispose();
    expect(Object.keys(sets.counts().counts)).toEqual(['core/cache']);
  });

  it('a size function that throws or answers nonsense counts as -1 (the others are still counted)', () => {
    const sets = new RetainedSets();
    sets.register('bad', () => {
      throw new Error('x');
    });
    sets.register('nan', () => Number.NaN);
    sets.register('good', () => 1);
    expect(sets.counts().counts).toEqual({ bad: -1, good: 1, nan: -1 });
  });

  it('setBounded keeps the most recently set keys, at most max; setting a key again makes it the newest', () => {
    const map = new Map<string, number>();
    for (const key of ['a', 'b', 'c']) setBounded(map, key, 1, 3);
    setBounded(map, 'a', 2, 3); // a is newest now: b goes first
    setBounded(map, 'd', 1, 3);
    expect([...map.keys()]).toEqual(['c', 'a', 'd']);
    expect(map.get('a')).toBe(2);
    for (let i = 0; i < 1000; i++) setBounded(map, `k${i}`, i, 3);
    expect(map.size).toBe(3);
  });

  it('addBounded does the same for a set', () => {
    const set = new Set<string>();
    for (let i = 0; i < 100; i++) addBounded(set, `m${i}`, 5);
    addBounded(set, 'm95', 5);
    addBounded(set, 'new', 5);
    expect([...set]).toEqual(['m97', 'm98', 'm99', 'm95', 'new']);
  });
});

describe('the data-flow states of conversations (the gate)', () => {
  const seed = { trusted: false, calls: [] };

  it('keeps at most maxIdle states of conversations without a run, dropping the least recently run first', () => {
    const flow = new DataFlow(3);
    for (const id of ['c1', 'c2', 'c3', 'c4', 'c5']) {
      flow.seed(id, seed);
      flow.state(id).sources.add(`https://${id}.example`);
      flow.ended(id);
    }
    expect(flow.size).toBe(3);
    // The newest three stay with what they read; the oldest were dropped (a new run seeds them again).
    expect([...flow.state('c5').sources]).toEqual(['https://c5.example']);
    expect([...flow.state('c3').sources]).toEqual(['https://c3.example']);
    expect(flow.state('c1').sources.size).toBe(0);
  });

  it('never drops the state of a conversation whose run goes on, however many others end', () => {
    const flow = new DataFlow(2);
    flow.seed('long', seed);
    flow.state('long').sources.add('https://mail.example');
    for (let i = 0; i < 50; i++) {
      flow.seed(`c${i}`, seed);
      flow.ended(`c${i}`);
    }
    expect(flow.size).toBe(3); // 2 idle + the running one
    expect([...flow.state('long').sources]).toEqual(['https://mail.example']);
    flow.ended('long');
    expect(flow.size).toBe(2);
    expect([...flow.state('long').sources]).toEqual(['https://mail.example']); // the newest idle one now
  });

  it('forget and clear drop the running mark too', () => {
    const flow = new DataFlow(1);
    flow.seed('a', seed);
    flow.forget('a');
    flow.seed('b', seed);
    flow.ended('b');
    flow.state('a'); // made again, no run: may go
    flow.ended('a');
    expect(flow.size).toBe(1);
    flow.clear();
    expect(flow.size).toBe(0);
  });
});

describe('the next message numbers the conversation store keeps', () => {
  it('keeps at most MAX_KNOWN_SEQ conversations; one that was dropped reads its last number again and goes on from it', async () => {
    const store = new ConversationStore(openDb('test-retained-seq'));
    const first = await store.create();
    await store.append({ role: 'user', conversationId: first.id, text: 'one' });
    await store.append({ role: 'user', conversationId: first.id, text: 'two' });
    for (let i = 0; i < MAX_KNOWN_SEQ + 5; i++) await store.create();
    expect(store.knownSeqs).toBe(MAX_KNOWN_SEQ);
    await store.append({ role: 'user', conversationId: first.id, text: 'three' });
    const messages = await store.messages(first.id);
    expect(messages.map((m) => [m.seq, (m as { text: string }).text])).toEqual([
      [0, 'one'],
      [1, 'two'],
      [2, 'three'],
    ]);
    expect(store.knownSeqs).toBe(MAX_KNOWN_SEQ);
  });
});
