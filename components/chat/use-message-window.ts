import { computed, nextTick, onMounted, onUnmounted, shallowRef, watch, type ComputedRef, type Ref } from 'vue';
import { nextWindow, openWindow, resized, showEarlier as showEarlierPage, spacers, WINDOW_OPTIONS, type MessageWindow } from './message-window';

/** The elements the message list is made of (template refs of `ChatView.vue`). */
export interface MessageListElements {
  /** The scrolling box (the log). */
  scroller: Ref<HTMLElement | undefined>;
  /** Everything that scrolls: welcome, Show earlier, the messages, the run status. */
  content: Ref<HTMLElement | undefined>;
  /** The box of the loaded messages: spacers and `article[data-message-id]` children. */
  region: Ref<HTMLElement | undefined>;
}

export interface MessageWindowView<M> {
  /** The messages in the DOM now. */
  rendered: ComputedRef<M[]>;
  /** Earlier messages not loaded (the count Show earlier names). */
  hiddenCount: ComputedRef<number>;
  /** Heights of the space standing for the loaded messages off the DOM, above and below. */
  space: ComputedRef<{ above: number; below: number }>;
  /** Show earlier: renders the next page of earlier messages, keeping what the user looks at in place. */
  showEarlier: () => Promise<void>;
  /** Bind to the scroller's scroll event. */
  onScroll: () => void;
  /** Bind to the scroller's wheel, touch, key and pointer events: the next scroll is the user's. */
  onUserIntent: () => void;
  /** Scrolls to the end once the DOM is updated; `force` follows the end again. */
  scrollToEnd: (force?: boolean) => Promise<void>;
}

/**
 * The sidebar's message list: which messages are in the DOM, and following the end.
 *
 * Long conversations: the latest messages are loaded when one opens, earlier ones come with Show
 * earlier or as the user scrolls up, a few a frame; at most about 100 messages are in the DOM, the
 * others being spacers of their measured heights (the pure logic is `message-window.ts`). Opening
 * a 2,000-message conversation builds 40 messages, and scrolling through all of it never more
 * than ~100.
 *
 * Following: the list sticks to the end while the answer grows, unless the user scrolled up to
 * read. A ResizeObserver sees every growth (streamed text, a new card, an off-screen message
 * getting its real size); only a scroll the user made decides whether to keep following.
 *
 * `conversationId` and `messages`: a change of conversation (or of its first message) opens the
 * window at the end; messages added within one are rendered when the end was.
 */
export function useMessageWindow<M extends { id: string }>(
  conversationId: Ref<string | null>,
  messages: Ref<M[]>,
  elements: MessageListElements,
): MessageWindowView<M> {
  const win = shallowRef<MessageWindow>(openWindow(0));
  /** Measured heights (with the gap after each), by message id. */
  const heights = new Map<string, number>();
  const heightOf = (index: number) => heights.get(messages.value[index]?.id ?? '') ?? WINDOW_OPTIONS.estimate;
  const rendered = computed(() => messages.value.slice(win.value.start, win.value.end));
  const hiddenCount = computed(() => win.value.loadedStart);
  const space = computed(() => spacers(win.value, messages.value.length, heightOf));

  let following = true;
  let userScroll = false;
  let frame = 0;

  function schedule(): void {
    if (!frame) frame = requestAnimationFrame(() => void update());
  }

  /**
   * Once a frame while something is to change: measures the rendered messages, moves the window
   * towards the view, and puts back the message the user looks at where it was.
   */
  async function update(): Promise<void> {
    frame = 0;
    const el = elements.scroller.value;
    const box = elements.region.value;
    if (!el || !box) return;
    // Following the end with every loaded message rendered (a conversation that fits): nothing to
    // change, and no layout to force while an answer streams.
    const w = win.value;
    if (following && w.end === messages.value.length && w.start === w.loadedStart && w.end - w.start <= WINDOW_OPTIONS.maxRendered) return;
    const articles = [...box.querySelectorAll<HTMLElement>(':scope > article[data-message-id]')];
    const view = el.getBoundingClientRect();
    let anchor: HTMLElement | undefined;
    let anchorTop = 0;
    let pinned = -1;
    const focused = document.activeElement;
    // The gap after each message (the same for all).
    const gap = articles.length ? parseFloat(getComputedStyle(articles[0]!).marginBottom) || 0 : 0;
    for (const [k, article] of articles.entries()) {
      const rect = article.getBoundingClientRect();
      heights.set(article.dataset.messageId!, rect.height + gap);
      if (!anchor && rect.bottom > view.top) {
        anchor = article;
        anchorTop = rect.top;
      }
      if (focused && article.contains(focused)) pinned = win.value.start + k;
    }
    const next = nextWindow(win.value, messages.value.length, heightOf, {
      top: view.top - box.getBoundingClientRect().top,
      height: view.height,
      loadEarlier: !following,
      pinned,
    });
    if (next === win.value) return;
    win.value = next;
    await nextTick();
    // Earlier messages went in (or out) above: the one in view stays where it was.
    if (!following && anchor?.isConnected) el.scrollTop += anchor.getBoundingClientRect().top - anchorTop;
    schedule();
  }

  async function showEarlier(): Promise<void> {
    const el = elements.scroller.value;
    const before = el ? el.scrollHeight - el.scrollTop : 0;
    win.value = showEarlierPage(win.value);
    await nextTick();
    if (el) el.scrollTop = el.scrollHeight - before;
    schedule();
  }

  watch(
    () => [conversationId.value, messages.value.length, messages.value[0]?.id] as const,
    ([id, length, first], before) => {
      if (!before || id !== before[0] || first !== before[2] || !before[1]) {
        heights.clear();
        win.value = openWindow(length);
      } else if (length !== before[1]) win.value = resized(win.value, before[1], length);
      schedule();
    },
    { immediate: true },
  );

  function stickToEnd(): void {
    const el = elements.scroller.value;
    if (el && following) el.scrollTop = el.scrollHeight;
  }
  function onUserIntent(): void {
    userScroll = true;
  }
  function onScroll(): void {
    schedule();
    const el = elements.scroller.value;
    if (!el || !userScroll) return;
    userScroll = false;
    following = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  }
  async function scrollToEnd(force = false): Promise<void> {
    if (force) following = true;
    await nextTick();
    stickToEnd();
  }

  let resizeObserver: ResizeObserver | undefined;
  onMounted(() => {
    resizeObserver = new ResizeObserver(() => {
      stickToEnd();
      schedule();
    });
    if (elements.content.value) resizeObserver.observe(elements.content.value);
  });
  onUnmounted(() => {
    cancelAnimationFrame(frame);
    resizeObserver?.disconnect();
  });

  return { rendered, hiddenCount, space, showEarlier, onScroll, onUserIntent, scrollToEnd };
}
