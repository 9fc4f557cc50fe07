import type { Browser } from 'wxt/browser';
import { describe, expect, it } from 'vitest';
import { Session } from './session';

/** A port whose page is gone (postMessage throws) or that records what it sends. */
function port(gone: boolean) {
  const sent: unknown[] = [];
  return {
    sent,
    port: {
      postMessage(message: unknown) {
        if (gone) throw new Error('Attempting to use a disconnected port object');
        sent.push(message);
      },
    } as unknown as Browser.runtime.Port,
  };
}

describe('a page-tools session keeps nothing of a call that ended', () => {
  it('a call the page answered, one aborted, and one that could not be posted leave no pending call and no call name', async () => {
    const live = port(false);
    const session = new Session(7, 'https://tools.example', live.port, 'https://tools.example/');
    const answered = session.call('add', { a: 1 }, new AbortController().signal, 'add');
    // As the manager answers a result from the page: the waiting call leaves `pending`, then resolves.
    const resolve = session.pending.get('1')!;
    session.pending.delete('1');
    resolve({ ok: true, json: '2' });
    await expect(answered).resolves.toEqual({ ok: true, json: '2' });
    const stop = new AbortController();
    const aborted = session.call('add', {}, stop.signal, 'add');
    stop.abort(new Error('stopped'));
    await expect(aborted).rejects.toThrow('stopped');
    expect(session.pending.size).toBe(0);
    expect(session.callTools.size).toBe(0);

    const gone = new Session(8, 'https://tools.example', port(true).port, 'https://tools.example/');
    await expect(gone.call('add', {}, new AbortController().signal, 'add')).resolves.toMatchObject({ ok: false });
    expect(gone.pending.size).toBe(0);
    expect(gone.callTools.size).toBe(0);
  });
});
