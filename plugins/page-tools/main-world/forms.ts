/**
 * Declarative WebMCP in the bridge: `<form toolname>` tools found and followed as the DOM changes,
 * `SubmitEvent.prototype.agentInvoked`/`respondWith` where the browser has none, and a call that
 * fills the form (`declarative.ts`) then submits it or waits for the user's own submit.
 */
import type { WireCallResult, WireCallStatus } from '../wire';
import { fillForm, formToolInfo } from '../declarative';
import { fireAgentEvent } from './webmcp';
import { clip, errorText, LIMITS, own, WEBMCP_NAME, type BridgeContext, type FormEntry } from './shared';

export interface FormsSection {
  /** Rebuilds the form tools from the DOM now; true when they changed. */
  scan(): boolean;
  /** Follows the DOM for changes to form tools; returns the stop. */
  watch(): () => void;
  /** `agentInvoked: false` and a refusing `respondWith` on submits the agent did not start. */
  installSubmitEventApi(): void;
  call(entry: FormEntry, input: Record<string, unknown>, signal: AbortSignal, onStatus?: (status: WireCallStatus) => void): Promise<WireCallResult>;
}

const ATTRIBUTES = ['toolname', 'tooldescription', 'toolautosubmit', 'toolparamdescription', 'name', 'type', 'required', 'min', 'max', 'step', 'pattern', 'minlength', 'maxlength', 'multiple', 'disabled', 'value'];

export function createForms(ctx: BridgeContext): FormsSection {
  const { I, win, state } = ctx;
  /** Cancels the running call of a form (reset, removed, its tool changed). */
  const formCancels = new I.WeakMap<HTMLFormElement, (reason: string) => void>();
  const domError = (message: string, name: string) => new I.DOMException(message, name);

  /** Forms with `toolname` now: rebuilt on each change of the DOM that touches them. */
  function scan(): boolean {
    const next = new I.Map<string, FormEntry>();
    const problems: string[] = [];
    const forms = win.document.querySelectorAll('form[toolname]');
    for (let i = 0; i < forms.length; i++) {
      const form = forms[i] as HTMLFormElement;
      const info = formToolInfo(form, WEBMCP_NAME, I);
      if (typeof info === 'string') {
        I.push(problems, info);
        continue;
      }
      const key = `df:${info.name}`;
      if (next.has(key) || state.webmcpTools.has(info.name)) {
        I.push(problems, `Invalid form tool "${info.name}": another tool of the page has that name.`);
        continue;
      }
      if (next.size + state.webmcpTools.size + state.devtoolsTools.size >= LIMITS.toolsPerPage) break;
      const json = I.stringify(info.schema)!;
      if (json.length > LIMITS.schemaChars) {
        I.push(problems, `Invalid form tool "${info.name}": its form has too many fields.`);
        continue;
      }
      next.set(key, {
        form,
        wire: { key, name: info.name, description: clip(I, info.description, LIMITS.description), inputSchema: info.schema, form: { autosubmit: info.autosubmit } },
      });
    }
    const wires = (map: Map<string, FormEntry>) => {
      const out: unknown[] = [];
      map.forEach((e) => I.push(out, e.wire));
      return I.stringify(out);
    };
    const before = wires(state.formTools);
    const after = wires(next);
    // A form whose tool changed or went away cancels its running call (the explainer's rule).
    state.formTools.forEach((entry, key) => {
      const now = next.get(key);
      if (!now || now.form !== entry.form || I.stringify(now.wire) !== I.stringify(entry.wire)) formCancels.get(entry.form)?.('The form\'s tool declaration changed or the form was removed.');
    });
    state.formTools = next;
    state.formProblems = problems;
    return before !== after;
  }

  function watch(): () => void {
    const Observer = I.MutationObserver;
    if (!Observer) return () => undefined;
    let timer: number | undefined;
    const observer = new Observer((records) => {
      // Our own highlight of a waiting form is no change of its tool.
      if (I.every(records, (r) => r.type === 'attributes' && (r.attributeName === 'style' || r.attributeName === 'data-tool-form-active'))) return;
      I.clearTimeout(timer);
      timer = I.setTimeout(() => {
        if (scan()) ctx.announceChange();
      }, 50);
    });
    I.observe(observer, win.document.documentElement ?? win.document, { subtree: true, childList: true, attributes: true, attributeFilter: ATTRIBUTES });
    return () => {
      I.disconnect(observer);
      I.clearTimeout(timer);
    };
  }

  function installSubmitEventApi(): void {
    // Where the browser has no declarative WebMCP: a submit the agent did not start says so.
    const proto = win.SubmitEvent?.prototype as (SubmitEvent & Record<string, unknown>) | undefined;
    if (!proto || 'agentInvoked' in proto) return;
    I.defineProperty(proto, 'agentInvoked', own({ get: () => false, configurable: true, enumerable: true }));
    I.defineProperty(proto, 'respondWith', own({
      value: () => {
        throw domError('respondWith: this submit was not started by an agent.', 'InvalidStateError');
      },
      configurable: true,
      writable: true,
    }));
  }

  function call(entry: FormEntry, input: Record<string, unknown>, signal: AbortSignal, onStatus?: (status: WireCallStatus) => void): Promise<WireCallResult> {
    const { form } = entry;
    const autosubmit = Boolean(entry.wire.form?.autosubmit);
    if (!form.isConnected) return I.resolve({ ok: false, error: 'The form is no longer in the page.' });
    try {
      fillForm(win, form, input, I);
    } catch (error) {
      return I.resolve({ ok: false, error: errorText(I, error) });
    }
    fireAgentEvent(ctx, 'toolactivated', entry.wire.name);
    return new I.Promise<WireCallResult>((resolve) => {
      let done = false;
      const previousOutline = form.style.outline;
      const previousOffset = form.style.outlineOffset;
      const finish = (result: WireCallResult) => {
        if (done) return;
        done = true;
        I.unlisten(win, 'submit', onSubmit, true);
        I.unlisten(win, 'pagehide', onPageHide);
        I.unlisten(form, 'reset', onReset);
        I.unlisten(signal, 'abort', onAbort);
        formCancels.delete(form);
        if (!autosubmit) {
          form.style.outline = previousOutline;
          form.style.outlineOffset = previousOffset;
          form.removeAttribute('data-tool-form-active');
        }
        resolve(result);
      };
      let navigatingSaid = false;
      const sayNavigating = () => {
        if (navigatingSaid || done) return;
        navigatingSaid = true;
        onStatus?.('navigating');
      };
      let submitted = false;
      // The document may go before a task later (Firefox): leaving after a submit is a navigation.
      const onPageHide = () => {
        if (submitted) sayNavigating();
      };
      const onSubmit = (event: Event) => {
        if (I.targetOf(event) !== form || done) return;
        submitted = true;
        let responded = false;
        I.defineProperty(event, 'agentInvoked', own({ value: true, configurable: true, enumerable: true }));
        I.defineProperty(event, 'respondWith', own({
          value: (response: unknown) => {
            if (responded) throw domError('respondWith was already called for this submit.', 'InvalidStateError');
            responded = true;
            // The page answers instead of navigating.
            I.preventDefault(event);
            I.then(
              I.resolve(response),
              (value) => finish(ctx.resultOf(value)),
              (error) => finish({ ok: false, error: errorText(I, error) || 'The page rejected the form\'s response without a message.' }),
            );
          },
          configurable: true,
          enumerable: true,
        }));
        // After every listener of this submit has run (a task later, whoever dispatched it).
        I.then(I.macrotask(), () => {
          if (responded || done) return;
          if (I.defaultPrevented(event)) {
            finish({ ok: true, json: I.stringify({ submitted: true, note: 'The page took the form without navigating and gave no response.' })! });
          } else {
            // The browser is about to load the form's action: the background reports where it landed.
            sayNavigating();
          }
        });
      };
      const onReset = () => finish({ ok: false, error: 'The form was reset before it was submitted: nothing was sent.' });
      // The agent's cancel (Stop): the page hears `toolcancel`; its own changes end the call quietly.
      const onAbort = () => {
        if (done) return;
        finish({ ok: false, error: 'Cancelled: the agent stopped waiting for the form.' });
        fireAgentEvent(ctx, 'toolcancel', entry.wire.name);
      };
      formCancels.set(form, (reason) => finish({ ok: false, error: reason }));
      I.listen(win, 'submit', onSubmit, true);
      I.listen(win, 'pagehide', onPageHide);
      I.listen(form, 'reset', onReset);
      I.listen(signal, 'abort', onAbort, { once: true });
      if (autosubmit) {
        // An invalid form is not submitted at all (the browser shows its messages): say what is wrong.
        if (!form.noValidate && !form.checkValidity()) {
          finish({ ok: false, error: `The form was not submitted: ${invalidFields(ctx, form)}` });
          return;
        }
        try {
          form.requestSubmit();
        } catch (error) {
          finish({ ok: false, error: `The form could not be submitted: ${errorText(I, error)}` });
        }
        return;
      }
      // Shown to the user, who checks the form and submits it: the sidebar says so too.
      form.setAttribute('data-tool-form-active', '');
      form.style.outline = '3px solid #f59e0b';
      form.style.outlineOffset = '4px';
      try {
        form.scrollIntoView?.({ block: 'center' });
        (form.querySelector('button[type="submit"], button:not([type]), input[type="submit"]') as HTMLElement | null)?.focus?.();
      } catch {
        // Not fatal: the highlight is enough.
      }
      onStatus?.('waiting-user');
    });
  }

  return { scan, watch, installSubmitEventApi, call };
}

/** The fields the browser would refuse, with its own messages. */
function invalidFields({ I }: BridgeContext, form: HTMLFormElement): string {
  const out: string[] = [];
  const elements = form.elements;
  for (let i = 0; i < elements.length; i++) {
    const control = elements[i] as HTMLInputElement;
    if (typeof control.checkValidity !== 'function' || control.checkValidity()) continue;
    const name = control.name || control.id || I.toLowerCase(control.tagName);
    if (I.some(out, (o) => I.startsWith(o, `${name}:`))) continue;
    I.push(out, `${name}: ${control.validationMessage || 'invalid value'}`);
    if (out.length >= 10) break;
  }
  return out.length ? I.join(out, '; ') : 'the form is not valid.';
}
