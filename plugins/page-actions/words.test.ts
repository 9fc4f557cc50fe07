// The approval card's words for each action, and which calls are sensitive, with a fake service
// standing in for the page agent (`describe` requests) and a fake host lookup.
import { describe, expect, it, vi } from 'vitest';
import { english, type Said } from '@/core/i18n/catalog';
import type { ElementFacts, PageRequest } from './protocol';
import { canonicalKey } from './key-spec';
import { isSensitiveName } from './sensitive';
import { cardWords, cut, describeAction, type WordsEnv } from './words';

function env(facts: Record<string, ElementFacts | 'stale'>, host = 'shop.example'): WordsEnv & { requests: Array<[number, PageRequest]> } {
  const requests: Array<[number, PageRequest]> = [];
  return {
    requests,
    host: async () => host,
    service: {
      callPage: (async (tabId: number, request: PageRequest) => {
        requests.push([tabId, request]);
        const ref = 'ref' in request ? request.ref : '';
        const found = facts[ref!];
        if (!found) return { ok: false, error: `No element ${ref}.` };
        if (found === 'stale') return { ok: false, error: 'Stale reference: call read_page again.', stale: true };
        return { ok: true, token: 't1', ...found };
      }) as WordsEnv['service']['callPage'],
    },
  };
}

const BUTTON = (name: string, more: Partial<ElementFacts> = {}): ElementFacts => ({ role: 'button', name, tag: 'button', ...more });
const FIELD = (name: string, type = 'text'): ElementFacts => ({ role: 'textbox', name, tag: 'input', type, editable: true });

async function card(tool: Parameters<typeof describeAction>[0], input: Record<string, unknown>, e: WordsEnv) {
  const words = await describeAction(tool, input, 7, e);
  return { text: words ? english(words.words) : undefined, sensitive: words?.sensitive === true, words: words?.words as Said | undefined };
}

describe('card words', () => {
  const page = env({
    e1: BUTTON('Add to cart'),
    e2: BUTTON('Place order'),
    e3: FIELD('What needs to be done?'),
    e4: FIELD('Password', 'password'),
    e5: { role: 'combobox', name: 'Country', tag: 'select' },
    e6: BUTTON('Save', { submitsPost: true }),
    e7: BUTTON(''),
    e8: BUTTON(`Buy ${'x'.repeat(300)}`),
  });

  it('click, with the element\'s name from the page and the site', async () => {
    expect(await card('click', { ref: 'e1' }, page)).toMatchObject({ text: 'Click “Add to cart” on shop.example', sensitive: false });
    expect(page.requests.at(-1)).toEqual([7, { op: 'describe', ref: 'e1', as: 'click' }]);
    expect((await card('click', { ref: 'e1', double: true }, page)).text).toBe('Double-click “Add to cart” on shop.example');
    expect((await card('click', { ref: 'e1', button: 'right' }, page)).text).toBe('Right-click “Add to cart” on shop.example');
    expect((await card('click', { ref: 'e1', modifiers: ['Control', 'Shift'] }, page)).text).toBe('Click “Add to cart” holding Control+Shift on shop.example');
  });

  it('a nameless element is called by its role and reference; a long name is cut', async () => {
    expect((await card('click', { ref: 'e7' }, page)).text).toBe('Click “button e7” on shop.example');
    const long = (await card('click', { ref: 'e8' }, page)).words!.params!.name as string;
    expect([...long].length).toBeLessThanOrEqual(80);
    expect(long.endsWith('…')).toBe(true);
  });

  it('fill: the text (cut) into the field; a password field shows dots, never the text', async () => {
    expect(await card('fill', { ref: 'e3', text: 'buy milk' }, page)).toMatchObject({ text: 'Type “buy milk” into “What needs to be done?” on shop.example', sensitive: false });
    expect((await card('fill', { ref: 'e3', text: 'buy milk', submit: true }, page)).text).toBe('Type “buy milk” into “What needs to be done?” and press Enter on shop.example');
    expect((await card('fill', { ref: 'e3', text: '' }, page)).text).toBe('Clear “What needs to be done?” on shop.example');
    const secret = await card('fill', { ref: 'e4', text: 'hunter2' }, page);
    expect(secret).toMatchObject({ text: 'Type “••••••••” into “Password” on shop.example', sensitive: true });
    expect(JSON.stringify(secret.words)).not.toContain('hunter2');
    const longText = (await card('fill', { ref: 'e3', text: 'word '.repeat(100) }, page)).words!.params!.text as string;
    expect([...longText].length).toBeLessThanOrEqual(60);
  });

  it('select_option, press_key, hover, scroll', async () => {
    expect((await card('select_option', { ref: 'e5', label: 'Armenia' }, page)).text).toBe('Choose “Armenia” in “Country” on shop.example');
    expect((await card('select_option', { ref: 'e5', value: 'AM' }, page)).text).toBe('Choose “AM” in “Country” on shop.example');
    expect((await card('press_key', { key: 'Escape' }, page)).text).toBe('Press Escape on shop.example');
    expect((await card('press_key', { key: 'ArrowDown', ref: 'e5' }, page)).text).toBe('Press ArrowDown in “Country” on shop.example');
    expect((await card('hover', { ref: 'e1' }, page)).text).toBe('Point at “Add to cart” on shop.example');
    expect((await card('scroll', { direction: 'down' }, page)).text).toBe('Scroll down on shop.example');
    expect((await card('scroll', {}, page)).text).toBe('Scroll down on shop.example');
    expect((await card('scroll', { ref: 'e5' }, page)).text).toBe('Scroll to “Country” on shop.example');
    expect((await card('scroll', { ref: 'e5', direction: 'up' }, page)).text).toBe('Scroll up inside “Country” on shop.example');
  });

  it('navigate: an address, back, forward, reload (no page request)', async () => {
    const before = page.requests.length;
    expect((await card('navigate', { url: 'https://shop.example/checkout' }, page)).text).toBe('Open https://shop.example/checkout in this tab');
    expect((await card('navigate', { action: 'back' }, page)).text).toBe('Go back a page on shop.example');
    expect((await card('navigate', { action: 'forward' }, page)).text).toBe('Go forward a page on shop.example');
    expect((await card('navigate', { action: 'reload' }, page)).text).toBe('Reload the page on shop.example');
    expect(page.requests.length).toBe(before);
  });

  it('read-only tools have no card words', () => {
    for (const tool of ['read_page', 'wait_for', 'screenshot', 'hand_over']) expect(cardWords(tool)).toBeUndefined();
    for (const tool of ['click', 'fill', 'select_option', 'press_key', 'hover', 'scroll', 'navigate']) expect(cardWords(tool)).toBeTypeOf('function');
  });

  it('cardWords gives the annotation: it uses the context\'s service and tab', async () => {
    const e = env({ e2: BUTTON('Place order') });
    const describe = cardWords('click')!;
    // The host comes from the browser's tab: none in a unit test, so "this page".
    const words = await describe({ ref: 'e2' }, { tabId: 3, service: e.service });
    expect(e.requests).toEqual([[3, { op: 'describe', ref: 'e2', as: 'click' }]]);
    expect(words?.sensitive).toBe(true);
    expect(english(words!.words)).toMatch(/^Click “Place order” on /);
  });

  it('a reference the page does not know: words with the reference, not sensitive (the action fails the same way)', async () => {
    expect(await card('click', { ref: 'e99' }, page)).toMatchObject({ text: 'Click “e99” on shop.example', sensitive: false });
    const stale = env({ e1: 'stale' });
    expect((await card('click', { ref: 'e1' }, stale)).text).toBe('Click “e1” on shop.example');
  });

  it('a page agent that cannot be asked throws (the gate keeps generic words and asks)', async () => {
    const broken: WordsEnv = { host: async () => 'x', service: { callPage: vi.fn(async () => Promise.reject(new Error('Cannot access this page'))) as never } };
    await expect(describeAction('click', { ref: 'e1' }, 7, broken)).rejects.toThrow(/Cannot access/);
    await expect(describeAction('click', { ref: 'e1' }, undefined, broken)).rejects.toThrow(/No tab/);
  });

  it('a site that cannot be told is "this page"', async () => {
    const e = { ...env({ e1: BUTTON('Go') }), host: async () => undefined };
    expect((await card('click', { ref: 'e1' }, e)).text).toBe('Click “Go” on this page');
  });
});

describe('what a call carries where (the outbound rule), judged on the element that receives it', () => {
  const page = env({
    field: FIELD('Note'),
    inForm: { ...FIELD('Search'), form: 'https://evil.example/collect' },
    link: { role: 'link', name: 'Read more', tag: 'a', link: 'https://evil.example/?d=1' },
    submit: { ...BUTTON('Go'), form: 'https://evil.example/collect' },
    // A focusable label for a password field: the page agent describes the field it fills.
    pwLabel: FIELD('Your password', 'password'),
    list: { role: 'combobox', name: 'Country', tag: 'select' },
  });
  const words = (tool: Parameters<typeof describeAction>[0], input: Record<string, unknown>) => describeAction(tool, input, 7, page);

  it('typed and chosen text goes to the page; a followed link or submitted form to its destination', async () => {
    expect((await words('fill', { ref: 'field', text: 'the inbox' }))?.carries).toEqual({ text: 'the inbox' });
    expect((await words('fill', { ref: 'inForm', text: 'x' }))?.carries).toEqual({ text: 'x' });
    expect((await words('fill', { ref: 'inForm', text: 'x', submit: true }))?.carries).toEqual({ text: 'x', to: ['https://evil.example/collect'] });
    expect((await words('select_option', { ref: 'list', label: 'Armenia' }))?.carries).toEqual({ text: 'Armenia' });
    expect((await words('click', { ref: 'link' }))?.carries).toEqual({ to: ['https://evil.example/?d=1'] });
    expect((await words('click', { ref: 'submit' }))?.carries).toEqual({ to: ['https://evil.example/collect'] });
    expect((await words('click', { ref: 'field' }))?.carries).toBeUndefined();
    expect((await words('press_key', { key: 'a', ref: 'field' }))?.carries).toEqual({ text: 'a' });
    expect((await words('press_key', { key: 'Enter', ref: 'inForm' }))?.carries).toEqual({ to: ['https://evil.example/collect'] });
    expect((await words('press_key', { key: 'Control+a', ref: 'field' }))?.carries).toBeUndefined();
    expect((await words('hover', { ref: 'link' }))?.carries).toBeUndefined();
    // Each asks the page for the element that receives that action.
    expect(page.requests.map(([, r]) => (r as { as?: string }).as)).toEqual(['fill', 'fill', 'fill', 'select', 'click', 'click', 'click', 'press', 'press', 'press', 'other']);
  });

  it('a password the page receives (through a label too) is sensitive and hidden everywhere on the card', async () => {
    const typed = await words('fill', { ref: 'pwLabel', text: 'hunter2' });
    expect(typed).toMatchObject({ sensitive: true, hidden: ['text'] });
    expect(JSON.stringify(typed?.words)).not.toContain('hunter2');
  });
});

describe('sensitive calls', () => {
  const page = env({
    buy: BUTTON('Buy now'),
    pay: BUTTON('Proceed to payment'),
    del: BUTTON('Delete account'),
    send: BUTTON('Send'),
    post: BUTTON('Save changes', { submitsPost: true }),
    plain: BUTTON('Next'),
    display: BUTTON('Display options'),
    pw: FIELD('Your password', 'password'),
    pwNamed: FIELD('Passwort'),
    card: FIELD('Card number'),
    search: FIELD('Search'),
    postField: { ...FIELD('Amount'), submitsPost: true },
  });
  const sensitive = async (tool: Parameters<typeof describeAction>[0], input: Record<string, unknown>) => (await describeAction(tool, input, 7, page))?.sensitive === true;

  it('clicks on names that pay, delete or send, or that submit a form that posts', async () => {
    for (const ref of ['buy', 'pay', 'del', 'send', 'post']) expect(await sensitive('click', { ref }), ref).toBe(true);
    for (const ref of ['plain', 'display']) expect(await sensitive('click', { ref }), ref).toBe(false);
  });

  it('typing into a password field (or one named like a password or a card number)', async () => {
    for (const ref of ['pw', 'pwNamed', 'card']) expect(await sensitive('fill', { ref, text: 'x' }), ref).toBe(true);
    expect(await sensitive('fill', { ref: 'search', text: 'x' })).toBe(false);
  });

  it('Enter in a field: sensitive when the field submits a form that posts; Enter or Space with no element named', async () => {
    expect(await sensitive('fill', { ref: 'postField', text: '10', submit: true })).toBe(true);
    expect(await sensitive('fill', { ref: 'postField', text: '10' })).toBe(false);
    expect(await sensitive('fill', { ref: 'search', text: 'milk', submit: true })).toBe(false);
    expect(await sensitive('press_key', { key: 'Enter', ref: 'postField' })).toBe(true);
    expect(await sensitive('press_key', { key: 'Enter', ref: 'search' })).toBe(false);
    expect(await sensitive('press_key', { key: 'Enter' })).toBe(true);
    expect(await sensitive('press_key', { key: ' ' })).toBe(true);
    expect(await sensitive('press_key', { key: 'Control+Enter' })).toBe(true);
    expect(await sensitive('press_key', { key: 'Escape' })).toBe(false);
  });

  it('hover, scroll, select_option and navigate are never sensitive', async () => {
    expect(await sensitive('hover', { ref: 'buy' })).toBe(false);
    expect(await sensitive('scroll', { ref: 'del' })).toBe(false);
    expect(await sensitive('select_option', { ref: 'pay', label: 'Visa' })).toBe(false);
    expect(await sensitive('navigate', { url: 'https://shop.example/delete' })).toBe(false);
  });

  it.each([
    // English and the UI languages
    'Buy now', 'Pay $12.00', 'Purchase', 'Place order', 'Checkout', 'Delete', 'Remove item', 'Send message', 'Transfer funds',
    'לתשלום', 'מחק', 'שלח הודעה', 'Ջնջել', 'Ուղարկել', 'Գնել հիմա', 'Thanh toán', 'Xóa', 'Gửi', 'Mua ngay', '立即购买', '删除', '发送', '支付',
    // Big web languages
    'Comprar ahora', 'Pagar', 'Eliminar', 'Enviar', 'Acheter', 'Payer maintenant', 'Supprimer', 'Envoyer', 'Jetzt kaufen', 'Zahlungspflichtig bestellen',
    'Löschen', 'Senden', 'Finalizar compra', 'Excluir', 'Купить', 'Оплатить', 'Удалить', 'Отправить', '購入する', '注文を確定する', '削除', '送信',
  ])('“%s” suggests paying, deleting or sending', (name) => {
    expect(isSensitiveName(name)).toBe(true);
  });

  it.each(['Next', 'Display', 'Search', 'Sort by', 'Sign in', 'Help', 'Displayed payee info'.replace('payee info', ''), 'Show more', 'Toggle', 'Home'])('“%s” does not', (name) => {
    expect(isSensitiveName(name)).toBe(false);
  });

  it('secret fields in several languages; Pinterest is not a PIN', () => {
    for (const name of ['Password', 'Contraseña', 'Mot de passe', 'Senha', 'Пароль', 'パスワード', '密码', 'סיסמה', 'Գաղտնաբառ', 'Mật khẩu', 'CVV', 'PIN code']) expect(isSensitiveName(name, 'secret'), name).toBe(true);
    for (const name of ['Username', 'Email', 'Pinterest profile', 'Search']) expect(isSensitiveName(name, 'secret'), name).toBe(false);
  });

  it('a name cannot hide the word past what the card shows, nor make the matcher slow', () => {
    expect(isSensitiveName(`${'Continue '.repeat(30)}and pay`)).toBe(true);
    const started = performance.now();
    isSensitiveName('a'.repeat(100_000));
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('Enter by another name is Enter: the card says so, and it is judged as Enter', async () => {
    for (const key of ['\r', '\n', '\r\n', 'Return', 'return', 'NumpadEnter', 'Enter']) {
      expect(canonicalKey(key), JSON.stringify(key)).toBe('Enter');
      expect(await card('press_key', { key, ref: 'postField' }, page), JSON.stringify(key)).toMatchObject({ text: 'Press Enter in “Amount” on shop.example', sensitive: true });
      expect(await sensitive('press_key', { key }), JSON.stringify(key)).toBe(true);
    }
    expect(canonicalKey('Shift+\r')).toBe('Shift+Enter');
    expect(canonicalKey('\t')).toBe('Tab');
    expect(canonicalKey(' ')).toBe('Space');
    expect(canonicalKey('Control+a')).toBe('Control+a');
    expect(canonicalKey('Control++')).toBe('Control++');
    for (const key of ['Enter', 'Shift+Enter', 'Control+a', 'Control++', 'Space', 'F5', 'Alt+Shift+Tab']) expect(canonicalKey(canonicalKey(key))).toBe(canonicalKey(key));
    // Other control characters name no key: refused, never typed.
    for (const key of ['\u0001', 'a\u0000', '\u007f', 'Control+\u0003']) expect(() => canonicalKey(key), JSON.stringify(key)).toThrow(/control character|not a modifier|Unknown key/);
  });

  it('cut keeps whole graphemes on one line', () => {
    expect(cut('a\n\n b', 10)).toBe('a b');
    expect(cut('👍🏽'.repeat(5), 3)).toBe('👍🏽👍🏽…');
  });
});

describe('card words of the hands that point', () => {
  it('drag: onto an element, or by an offset; sensitive when either end is named like paying or deleting', async () => {
    const page = env({ e1: { role: 'listitem', name: 'Item 3', tag: 'li' }, e2: { role: 'listitem', name: 'Item 1', tag: 'li' }, e3: { role: 'button', name: 'Trash', tag: 'div' }, e4: { role: 'region', name: 'Delete forever', tag: 'div' } });
    expect(await card('drag', { ref: 'e1', to_ref: 'e2' }, page)).toMatchObject({ text: 'Drag “Item 3” onto “Item 1” on shop.example', sensitive: false });
    expect(await card('drag', { ref: 'e1', dx: 120.4, dy: -3 }, page)).toMatchObject({ text: 'Drag “Item 3” by 120, -3 px on shop.example', sensitive: false });
    expect((await card('drag', { ref: 'e1', to_ref: 'e4' }, page)).sensitive).toBe(true);
  });

  it('click_at and hover_at name what the page says is at the point; a sensitive name or nothing nameable asks every time', async () => {
    const at: Record<string, ElementFacts | undefined> = { '10,20': { role: 'img', name: 'Sales', tag: 'canvas' }, '30,40': BUTTON('Delete account') };
    const requests: PageRequest[] = [];
    const e: WordsEnv = {
      host: async () => 'shop.example',
      service: {
        callPage: (async (_tabId: number, request: PageRequest) => {
          requests.push(request);
          const found = request.op === 'describeAt' ? at[`${request.x},${request.y}`] : undefined;
          return found ? { ok: true, token: 't1', ...found } : { ok: false, error: 'There is no screenshot of this tab to point in.' };
        }) as WordsEnv['service']['callPage'],
      },
    };
    expect(await card('click_at', { x: 10, y: 20 }, e)).toMatchObject({ text: 'Click at 10, 20 of the screenshot, on img “Sales”, on shop.example', sensitive: false });
    expect(requests.at(-1)).toMatchObject({ op: 'describeAt', x: 10, y: 20 });
    expect(await card('click_at', { x: 30, y: 40, button: 'right' }, e)).toMatchObject({ text: 'Right-click at 30, 40 of the screenshot, on button “Delete account”, on shop.example', sensitive: true });
    expect(await card('click_at', { x: 1, y: 1 }, e)).toMatchObject({ text: 'Click at 1, 1 of the screenshot, on nothing the page can name, on shop.example', sensitive: true });
    expect(await card('hover_at', { x: 10, y: 20 }, e)).toMatchObject({ text: 'Point at 10, 20 of the screenshot, over img “Sales”, on shop.example', sensitive: false });
  });
});
