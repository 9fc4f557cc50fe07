// @vitest-environment happy-dom
// Declarative WebMCP: <form toolname> tools, their synthesized schema, and calls that fill the form
// as a user would, then submit (toolautosubmit) or wait for the user; respondWith gives the result.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fillForm, synthesizeFormSchema } from '@/plugins/page-tools/declarative';
import { installMainWorldBridge, type MainWorldBridge } from '@/plugins/page-tools/main-world';
import { TO_ISOLATED_EVENT, type MainToIsolated } from '@/plugins/page-tools/wire';

type Win = Window & typeof globalThis;
const win = window as unknown as Win;

const FORM = `
  <form id="f" toolname="book_table" tooldescription="Books a table." toolautosubmit>
    <label>Your name <input name="name" required minlength="2" maxlength="40"></label>
    <input name="email" type="email" toolparamdescription="Where the confirmation goes">
    <input name="code" pattern="[A-Z]{3}" aria-label="Booking code">
    <label>Guests <input name="guests" type="number" min="1" max="8" required></label>
    <input name="budget" type="number" step="0.5" placeholder="Budget">
    <label>Time <select name="time" required><option value="">Choose…</option><option value="19:00">7 pm</option><option value="19:30">7:30 pm</option></select></label>
    <select name="extras" multiple><option>Cake</option><option>Candles</option></select>
    <label><input type="checkbox" name="terrace"> Terrace</label>
    <fieldset><legend>Seating</legend>
      <label><input type="radio" name="seat" value="window" required> Window</label>
      <label><input type="radio" name="seat" value="bar"> Bar</label>
    </fieldset>
    <label><input type="checkbox" name="diet" value="vegan"> Vegan</label>
    <label><input type="checkbox" name="diet" value="nuts"> No nuts</label>
    <textarea name="notes" toolparamdescription="Anything else"></textarea>
    <input type="hidden" name="csrf" value="t">
    <input name="off" disabled>
    <button type="submit">Book</button>
  </form>`;

describe('declarative WebMCP forms', () => {
  let bridge: MainWorldBridge;
  let posted: MainToIsolated[];
  const onPosted = (e: Event) => posted.push(JSON.parse((e as CustomEvent).detail));
  let errors: ReturnType<typeof vi.spyOn>;

  beforeEach(() => {
    posted = [];
    document.body.innerHTML = FORM;
    window.addEventListener(TO_ISOLATED_EVENT, onPosted);
    errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    delete (document as any).modelContext;
    delete (navigator as any).modelContext;
    bridge = installMainWorldBridge(win, { autoDiscover: false });
  });

  afterEach(() => {
    bridge.dispose();
    window.removeEventListener(TO_ISOLATED_EVENT, onPosted);
    errors.mockRestore();
  });

  it('synthesizes the schema from the controls: types, required, constraints, options as enum, boxes, radios, descriptions', () => {
    const schema = synthesizeFormSchema(document.getElementById('f') as HTMLFormElement) as any;
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['name', 'guests', 'time', 'seat']);
    const p = schema.properties;
    expect(Object.keys(p)).toEqual(['name', 'email', 'code', 'guests', 'budget', 'time', 'extras', 'terrace', 'seat', 'diet', 'notes']);
    expect(p.name).toEqual({ type: 'string', minLength: 2, maxLength: 40, description: 'Your name' });
    expect(p.email).toEqual({ type: 'string', format: 'email', description: 'Where the confirmation goes' });
    expect(p.code).toEqual({ type: 'string', pattern: '^(?:[A-Z]{3})$', description: 'Booking code' });
    expect(p.guests).toEqual({ type: 'integer', minimum: 1, maximum: 8, description: 'Guests' });
    expect(p.budget).toEqual({ type: 'number', description: 'Budget' });
    expect(p.time.enum).toEqual(['19:00', '19:30']);
    expect(p.time.description).toContain('"19:30": 7:30 pm');
    expect(p.extras).toMatchObject({ type: 'array', items: { type: 'string', enum: ['Cake', 'Candles'] }, uniqueItems: true });
    expect(p.terrace).toEqual({ type: 'boolean', description: 'Terrace' });
    expect(p.seat).toMatchObject({ type: 'string', enum: ['window', 'bar'] });
    expect(p.seat.description).toMatch(/^Seating/);
    expect(p.diet).toMatchObject({ type: 'array', items: { enum: ['vegan', 'nuts'] } });
    expect(p.notes).toEqual({ type: 'string', description: 'Anything else' });
  });

  it('finds forms with toolname as tools, follows changes, and getTools lists them with the schema as a JSON string', async () => {
    const list = await bridge.discover('test');
    const group = list.groups.find((g) => g.name === 'WebMCP forms')!;
    expect(group.tools).toEqual([expect.objectContaining({ key: 'df:book_table', name: 'book_table', description: 'Books a table.', form: { autosubmit: true } })]);
    const tools = await (document as any).modelContext.getTools();
    expect(tools[0]).toMatchObject({ name: 'book_table', inputSchema: expect.any(String) });
    expect(JSON.parse(tools[0].inputSchema).required).toEqual(['name', 'guests', 'time', 'seat']);

    // A new form arrives: announced without anyone asking.
    document.body.insertAdjacentHTML('beforeend', '<form toolname="subscribe" tooldescription="Subscribes."><input name="email"></form><form toolname="bad name" tooldescription="x"></form>');
    await vi.waitFor(() => {
      const last = posted.at(-1) as Extract<MainToIsolated, { type: 'tools' }>;
      expect(last.list.groups.find((g) => g.name === 'WebMCP forms')?.tools.map((t) => t.name)).toEqual(['book_table', 'subscribe']);
      expect(last.list.problems.join(' ')).toMatch(/Invalid form tool "bad name"/);
    });
  });

  it('fills the form as a user would (input and change events), submits it with agentInvoked, and respondWith gives the result', async () => {
    await bridge.discover('test');
    const form = document.getElementById('f') as HTMLFormElement;
    const events: string[] = [];
    for (const type of ['input', 'change']) form.addEventListener(type, (e) => events.push(`${type}:${(e.target as HTMLInputElement).name}`));
    let seen: any;
    form.addEventListener('submit', (e: any) => {
      seen = { agentInvoked: e.agentInvoked };
      e.preventDefault();
      e.respondWith(Promise.resolve({ booked: true, name: (form.elements.namedItem('name') as HTMLInputElement).value }));
    });
    const result = await bridge.call('df:book_table', { name: 'Ada', guests: 4, time: '19:30', terrace: true, seat: 'bar', diet: ['nuts'], extras: ['Cake'] });
    expect(result).toEqual({ ok: true, json: '{"booked":true,"name":"Ada"}' });
    expect(seen).toEqual({ agentInvoked: true });
    expect(events).toEqual(expect.arrayContaining(['input:name', 'change:name', 'input:guests', 'change:time', 'change:terrace', 'change:seat', 'change:diet', 'change:extras']));
    expect((form.elements.namedItem('guests') as HTMLInputElement).value).toBe('4');
    expect((form.querySelector('[value=bar]') as HTMLInputElement).checked).toBe(true);
    expect((form.querySelector('[value=nuts]') as HTMLInputElement).checked).toBe(true);
    // A submit nobody invoked says so.
    const plain = new SubmitEvent('submit');
    expect((plain as any).agentInvoked).toBe(false);
  });

  it('a value that fits no control is an error; a page that handles the submit without respondWith is a plain success', async () => {
    await bridge.discover('test');
    expect(await bridge.call('df:book_table', { time: '23:00' })).toEqual({ ok: false, error: '"23:00" is not an option of the field "time".' });
    // An invalid form is not submitted: the call says which fields and why.
    const invalid = await bridge.call('df:book_table', { name: 'Bo' });
    expect(invalid).toEqual({ ok: false, error: expect.stringMatching(/^The form was not submitted: guests: /) });
    const form = document.getElementById('f') as HTMLFormElement;
    form.addEventListener('submit', (e) => e.preventDefault());
    const result = await bridge.call('df:book_table', { name: 'Bo', guests: 2, time: '19:00', seat: 'bar' });
    expect(result.ok).toBe(true);
    expect(JSON.parse((result as { json: string }).json)).toMatchObject({ submitted: true });
  });

  it('without toolautosubmit: highlights the form and waits for the user\'s submit; a cancel (Stop) ends the wait', async () => {
    const form = document.getElementById('f') as HTMLFormElement;
    form.removeAttribute('toolautosubmit');
    await bridge.discover('test');
    const statuses: string[] = [];
    const agentEvents: string[] = [];
    for (const type of ['toolactivated', 'toolcancel']) {
      (document as any).modelContext.addEventListener(type, (e: any) => agentEvents.push(`${e.type}:${e.toolName}`));
    }
    let submitted = false;
    form.addEventListener('submit', () => (submitted = true));
    const pending = bridge.call('df:book_table', { name: 'Ada' }, 'c1', (s) => statuses.push(s));
    await vi.waitFor(() => expect(statuses).toEqual(['waiting-user']));
    // Filled, not yet submitted: the page hears that an agent activated the form.
    expect(agentEvents).toEqual(['toolactivated:book_table']);
    expect(form.hasAttribute('data-tool-form-active')).toBe(true);
    expect(submitted).toBe(false);
    bridge.cancel('c1', 'stopped');
    expect(await pending).toEqual({ ok: false, error: 'Cancelled: the agent stopped waiting for the form.' });
    expect(agentEvents).toEqual(['toolactivated:book_table', 'toolcancel:book_table']);
    expect(form.hasAttribute('data-tool-form-active')).toBe(false);
    expect(form.style.outline).toBe('');

    // The user's own submit completes the call, with the page's response.
    form.addEventListener('submit', (e: any) => {
      e.preventDefault();
      e.respondWith({ sent: true });
    });
    const second = bridge.call('df:book_table', { name: 'Ada', guests: 2, time: '19:00', seat: 'bar' }, 'c2');
    await vi.waitFor(() => expect(form.hasAttribute('data-tool-form-active')).toBe(true));
    form.requestSubmit();
    expect(await second).toEqual({ ok: true, json: '{"sent":true}' });
  });

  it('a reset or a removed form ends the call with an error', async () => {
    const form = document.getElementById('f') as HTMLFormElement;
    form.removeAttribute('toolautosubmit');
    await bridge.discover('test');
    const pending = bridge.call('df:book_table', { name: 'Ada' }, 'c3');
    await vi.waitFor(() => expect(form.hasAttribute('data-tool-form-active')).toBe(true));
    const cancels: string[] = [];
    (document as any).modelContext.addEventListener('toolcancel', (e: any) => cancels.push(e.toolName));
    form.reset();
    expect(await pending).toEqual({ ok: false, error: expect.stringMatching(/reset/) });
    // The page's own reset is not the agent cancelling.
    expect(cancels).toEqual([]);
  });

  it('fillForm refuses a field the form does not have', () => {
    expect(() => fillForm(win, document.getElementById('f') as HTMLFormElement, { nope: 1 })).toThrow('The form has no field "nope".');
  });
});
