/**
 * The page's built-ins as they were at document_start, before any page script ran: one frozen
 * object the bridge's files take instead of reaching for globals or prototype methods. A page that
 * later replaces `window.JSON`, `Map.prototype.get`, `Function.prototype.call`,
 * `EventTarget.prototype.addEventListener`, `Promise.prototype.then` or the like changes nothing
 * the bridge does (zone.js, Prototype.js and analytics snippets do replace some of them).
 *
 * Prototype methods are kept uncurried (`I.push(list, x)` calls the original `push` on `list`)
 * with `Function.prototype.call` bound at capture, so no later lookup reaches the page's patches.
 * Maps, WeakMaps and Sets are "safe" subclasses whose own prototype holds the original methods,
 * so `map.get(k)` stays readable; iterate them with their own `forEach` (an iterator's `next`
 * lives on a shared, patchable prototype), and arrays with index loops, never `for…of` or `...`.
 *
 * What the bridge reads of the page's own DOM (forms, elements, frames, location) is read live:
 * that is page data, and treated as such downstream. This file must stay free of imports.
 */

/** The window the MAIN world runs in. */
export type PageWindow = Window & typeof globalThis;

type Fn = (...args: any[]) => any;

/** The page's built-ins taken at document start; see the file's comment. */
export interface Intrinsics {
  readonly Promise: PromiseConstructor;
  /** A Map whose methods (and `size`) were taken at capture. */
  readonly Map: MapConstructor;
  /** A WeakMap whose methods were taken at capture. */
  readonly WeakMap: WeakMapConstructor;
  /** A Set whose methods (and `size`) were taken at capture. */
  readonly Set: SetConstructor;
  readonly CustomEvent: typeof CustomEvent;
  readonly Event: typeof Event;
  readonly EventTarget: typeof EventTarget;
  readonly DOMException: typeof DOMException;
  readonly URL: typeof URL;
  readonly TypeError: TypeErrorConstructor;
  readonly Error: ErrorConstructor;
  readonly AbortController: typeof AbortController;
  readonly AbortSignal: typeof AbortSignal;
  readonly InputEvent: typeof InputEvent | undefined;
  readonly MutationObserver: typeof MutationObserver | undefined;
  readonly ObjectPrototype: object;
  readonly iterator: typeof Symbol.iterator;
  readonly toStringTag: typeof Symbol.toStringTag;

  stringify(value: unknown): string | undefined;
  parse(text: string): unknown;
  defineProperty<T>(target: T, key: PropertyKey, descriptor: PropertyDescriptor): T;
  getPrototypeOf(value: object): object | null;
  getOwnPropertyDescriptor(value: object, key: PropertyKey): PropertyDescriptor | undefined;
  keys(value: object): string[];
  hasOwn(value: object, key: PropertyKey): boolean;
  isArray(value: unknown): value is unknown[];
  arrayFrom<T>(items: Iterable<T> | ArrayLike<T>): T[];
  String(value: unknown): string;
  Number(value: unknown): number;
  isFinite(value: unknown): boolean;
  isInteger(value: unknown): boolean;
  assign<T extends object>(target: T, ...sources: object[]): T;
  /** `Reflect.apply`: calls `fn` with `self` and `args` (no lookup of `call`/`apply`). */
  apply(fn: Fn, self: unknown, args: ArrayLike<unknown>): any;
  /** `Promise.resolve`, the original. */
  resolve<T>(value: T): Promise<Awaited<T>>;
  then<T, R = unknown>(promise: PromiseLike<T>, onFulfilled: (value: T) => R | PromiseLike<R>, onRejected?: (error: unknown) => R | PromiseLike<R>): Promise<R>;

  push<T>(list: T[], ...items: T[]): number;
  map<T, R>(list: readonly T[], fn: (item: T, index: number) => R): R[];
  filter<T>(list: readonly T[], fn: (item: T, index: number) => unknown): T[];
  forEach<T>(list: readonly T[], fn: (item: T, index: number) => void): void;
  some<T>(list: readonly T[], fn: (item: T, index: number) => unknown): boolean;
  every<T>(list: readonly T[], fn: (item: T, index: number) => unknown): boolean;
  includes<T>(list: readonly T[], item: T): boolean;
  indexOf<T>(list: readonly T[], item: T): number;
  slice<T>(list: readonly T[], start?: number, end?: number): T[];
  concat<T>(list: readonly T[], ...more: Array<readonly T[]>): T[];
  join(list: readonly unknown[], separator: string): string;

  trim(text: string): string;
  strSlice(text: string, start?: number, end?: number): string;
  startsWith(text: string, prefix: string): boolean;
  endsWith(text: string, suffix: string): boolean;
  toLowerCase(text: string): string;
  charCodeAt(text: string, index: number): number;
  /** `RegExp.prototype.exec`, the original (what `test` and `match` look up). */
  exec(re: RegExp, text: string): RegExpExecArray | null;
  test(re: RegExp, text: string): boolean;

  listen(target: EventTarget, type: string, fn: (event: Event) => void, options?: boolean | AddEventListenerOptions): void;
  unlisten(target: EventTarget, type: string, fn: (event: Event) => void, options?: boolean | EventListenerOptions): void;
  dispatch(target: EventTarget, event: Event): boolean;
  detailOf(event: Event): unknown;
  targetOf(event: Event): EventTarget | null;
  defaultPrevented(event: Event): boolean;
  preventDefault(event: Event): void;
  abort(controller: AbortController, reason?: unknown): void;
  signalOf(controller: AbortController): AbortSignal;
  aborted(signal: AbortSignal): boolean;
  reasonOf(signal: AbortSignal): unknown;
  urlOrigin(url: URL): string;
  urlProtocol(url: URL): string;
  urlHostname(url: URL): string;
  observe(observer: MutationObserver, target: Node, options: MutationObserverInit): void;
  disconnect(observer: MutationObserver): void;

  setTimeout(fn: () => void, ms: number): number;
  clearTimeout(id: number | undefined): void;
  queueMicrotask(fn: () => void): void;
  now(): number;
  /** One macrotask (a MessageChannel message), not throttled in background tabs as timers are. */
  macrotask(): Promise<void>;
  /** `console.error`, never throwing (a page may break its console). */
  logError(...args: unknown[]): void;
}

/**
 * Takes the page's built-ins from `win`. Call it first, synchronously, at document_start: what it
 * holds is only as trustworthy as the moment it ran.
 */
export function captureIntrinsics(win: PageWindow): Intrinsics {
  const { Object: O, Array: A, Function: F, Reflect: R, JSON: J, Promise: P, String: S, RegExp: RE, Symbol: Sym } = win;
  const bind = F.prototype.bind;
  const call = F.prototype.call;
  // `uncurry(m)(self, ...args)` is `m.call(self, ...args)` with `call` fixed now.
  const uncurry = <T extends Fn>(method: T) => R.apply(bind, call, [method]) as (self: any, ...args: any[]) => any;
  const bound = <T extends Fn>(fn: T, self: unknown) => R.apply(bind, fn, [self]) as T;
  // An accessor of a prototype, taken now; a plain read where an implementation has none (happy-dom).
  const getter = (proto: object | undefined, key: string): ((self: any) => any) => {
    const get = proto && O.getOwnPropertyDescriptor(proto, key)?.get;
    return get ? uncurry(get) : (self) => self[key];
  };
  const setter = (proto: object | undefined, key: string): ((self: any, value: unknown) => void) => {
    const set = proto && O.getOwnPropertyDescriptor(proto, key)?.set;
    return set ? uncurry(set) : (self, value) => void (self[key] = value);
  };

  const ET = win.EventTarget.prototype;
  // The DOM's EventTarget.prototype, found from the document: the same object in a browser; in
  // happy-dom's test window the nodes have their own while `EventTarget` is Node's.
  let domET: EventTarget = ET;
  for (let p = O.getPrototypeOf(win.document); p; p = O.getPrototypeOf(p)) {
    if (O.getOwnPropertyDescriptor(p, 'addEventListener')) {
      domET = p;
      break;
    }
  }
  const family = (proto: EventTarget) => ({ add: uncurry(proto.addEventListener), remove: uncurry(proto.removeEventListener), dispatch: uncurry(proto.dispatchEvent) });
  const shared = family(ET);
  const dom = domET === ET ? shared : family(domET);
  const EventTargetCtor = win.EventTarget;
  const familyOf = (target: unknown) => (dom === shared || target instanceof EventTargetCtor ? shared : dom);
  // The window's own, bound to it (the same functions in a browser; happy-dom's global differs).
  const addWin = bound(win.addEventListener, win);
  const removeWin = bound(win.removeEventListener, win);
  const dispatchWin = bound(win.dispatchEvent, win);
  const listen: Intrinsics['listen'] = (target, type, fn, options) => (target === win ? addWin(type, fn, options) : familyOf(target).add(target, type, fn, options));
  const unlisten: Intrinsics['unlisten'] = (target, type, fn, options) => (target === win ? removeWin(type, fn, options) : familyOf(target).remove(target, type, fn, options));
  const dispatch: Intrinsics['dispatch'] = (target, event) => (target === win ? dispatchWin(event) : familyOf(target).dispatch(target, event));
  const exec = uncurry(RE.prototype.exec);
  const then = uncurry(P.prototype.then);
  const setTimer = bound(win.setTimeout, win);
  const clearTimer = bound(win.clearTimeout, win);
  const performanceNow = bound(win.performance.now, win.performance);
  const consoleError = win.console?.error;
  const consoleRef = win.console;

  const Channel = typeof win.MessageChannel === 'function' ? win.MessageChannel : undefined;
  // The port's prototype as the channel makes it (happy-dom hands out Node's ports).
  let port: MessagePort | undefined;
  try {
    port = Channel ? (O.getPrototypeOf(new Channel().port1) as MessagePort) : undefined;
  } catch {
    port = undefined;
  }
  const portPost = port?.postMessage ? uncurry(port.postMessage) : (self: MessagePort, message: unknown) => self.postMessage(message);
  const portClose = port?.close ? uncurry(port.close) : (self: MessagePort) => self.close();
  const setOnMessage = setter(port, 'onmessage');
  const channelPort1 = getter(Channel?.prototype, 'port1');
  const channelPort2 = getter(Channel?.prototype, 'port2');
  const macrotask =
    Channel
      ? () =>
          new P<void>((resolve) => {
            const channel = new Channel();
            const port1 = channelPort1(channel);
            setOnMessage(port1, () => {
              portClose(port1);
              resolve();
            });
            portPost(channelPort2(channel), null);
          })
      : () => new P<void>((resolve) => setTimer(resolve, 0));

  const intrinsics: Intrinsics = {
    Promise: P,
    Map: makeSafe(win, win.Map, uncurry) as MapConstructor,
    WeakMap: makeSafe(win, win.WeakMap, uncurry) as WeakMapConstructor,
    Set: makeSafe(win, win.Set, uncurry) as SetConstructor,
    CustomEvent: win.CustomEvent,
    Event: win.Event,
    EventTarget: win.EventTarget,
    DOMException: win.DOMException,
    URL: win.URL,
    TypeError: win.TypeError,
    Error: win.Error,
    AbortController: win.AbortController,
    AbortSignal: win.AbortSignal,
    InputEvent: typeof win.InputEvent === 'function' ? win.InputEvent : undefined,
    MutationObserver: typeof win.MutationObserver === 'function' ? win.MutationObserver : undefined,
    ObjectPrototype: O.prototype,
    iterator: Sym.iterator,
    toStringTag: Sym.toStringTag,

    stringify: bound(J.stringify, J) as Intrinsics['stringify'],
    parse: bound(J.parse, J) as Intrinsics['parse'],
    defineProperty: O.defineProperty,
    getPrototypeOf: O.getPrototypeOf,
    getOwnPropertyDescriptor: O.getOwnPropertyDescriptor,
    keys: O.keys,
    hasOwn: uncurry(O.prototype.hasOwnProperty),
    isArray: A.isArray,
    arrayFrom: A.from.bind(A) as Intrinsics['arrayFrom'],
    String: S,
    Number: win.Number,
    isFinite: win.Number.isFinite,
    isInteger: win.Number.isInteger,
    assign: O.assign,
    apply: R.apply,
    resolve: bound(P.resolve, P) as Intrinsics['resolve'],
    then: then as Intrinsics['then'],

    push: uncurry(A.prototype.push),
    map: uncurry(A.prototype.map),
    filter: uncurry(A.prototype.filter),
    forEach: uncurry(A.prototype.forEach),
    some: uncurry(A.prototype.some),
    every: uncurry(A.prototype.every),
    includes: uncurry(A.prototype.includes),
    indexOf: uncurry(A.prototype.indexOf),
    slice: uncurry(A.prototype.slice),
    concat: uncurry(A.prototype.concat),
    join: uncurry(A.prototype.join),

    trim: uncurry(S.prototype.trim),
    strSlice: uncurry(S.prototype.slice),
    startsWith: uncurry(S.prototype.startsWith),
    endsWith: uncurry(S.prototype.endsWith),
    toLowerCase: uncurry(S.prototype.toLowerCase),
    charCodeAt: uncurry(S.prototype.charCodeAt),
    exec,
    test: (re, text) => exec(re, text) !== null,

    listen,
    unlisten,
    dispatch,
    detailOf: getter(win.CustomEvent.prototype, 'detail'),
    targetOf: getter(win.Event.prototype, 'target'),
    defaultPrevented: getter(win.Event.prototype, 'defaultPrevented'),
    preventDefault: uncurry(win.Event.prototype.preventDefault),
    abort: uncurry(win.AbortController.prototype.abort),
    signalOf: getter(win.AbortController.prototype, 'signal'),
    aborted: getter(win.AbortSignal.prototype, 'aborted'),
    reasonOf: getter(win.AbortSignal.prototype, 'reason'),
    urlOrigin: getter(win.URL.prototype, 'origin'),
    urlProtocol: getter(win.URL.prototype, 'protocol'),
    urlHostname: getter(win.URL.prototype, 'hostname'),
    observe: typeof win.MutationObserver === 'function' ? uncurry(win.MutationObserver.prototype.observe) : () => undefined,
    disconnect: typeof win.MutationObserver === 'function' ? uncurry(win.MutationObserver.prototype.disconnect) : () => undefined,

    setTimeout: setTimer as unknown as Intrinsics['setTimeout'],
    clearTimeout: clearTimer as Intrinsics['clearTimeout'],
    queueMicrotask: bound(win.queueMicrotask, win),
    now: performanceNow,
    macrotask,
    logError: (...args) => {
      try {
        R.apply(consoleError!, consoleRef, args);
      } catch {
        // A page that broke its console.
      }
    },
  };
  return O.freeze(O.setPrototypeOf(intrinsics, null) as Intrinsics);
}

/**
 * A subclass of a keyed collection whose own prototype holds the original methods and `size`, so
 * a page that patches `Map.prototype` (say) does not reach the bridge's maps.
 */
function makeSafe(win: PageWindow, Base: MapConstructor | WeakMapConstructor | SetConstructor, uncurry: (m: Fn) => (self: any, ...args: any[]) => any): unknown {
  const O = win.Object;
  const apply = win.Reflect.apply;
  const Safe = class extends (Base as MapConstructor) {};
  const proto = Base.prototype as unknown as Record<PropertyKey, unknown>;
  for (const key of ['get', 'set', 'has', 'delete', 'clear', 'add', 'forEach', 'size'] as const) {
    const descriptor = O.getOwnPropertyDescriptor(proto, key);
    if (!descriptor) continue;
    if (descriptor.get) {
      const original = uncurry(descriptor.get);
      O.defineProperty(Safe.prototype, key, { __proto__: null, get: function (this: unknown) { return original(this); }, configurable: false } as PropertyDescriptor);
    } else if (typeof descriptor.value === 'function') {
      const original = descriptor.value as Fn;
      O.defineProperty(Safe.prototype, key, {
        __proto__: null,
        // Reflect.apply, not a spread: spreading goes through the (patchable) array iterator.
        value: function (this: unknown, ...args: unknown[]) {
          return apply(original, this, args);
        },
        configurable: false,
        writable: false,
      } as PropertyDescriptor);
    }
  }
  O.freeze(Safe.prototype);
  O.freeze(Safe);
  return Safe;
}
