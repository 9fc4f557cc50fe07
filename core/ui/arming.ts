import { onMounted, onUnmounted, readonly, ref, type Ref } from 'vue';

/**
 * How long an ask must have been on screen before its buttons take an answer: 1 s, as Firefox
 * waits before the buttons of a dialog that grants something work (`security.dialog_enable_delay`).
 * Longer than a double click (≈500 ms) and than the gap between a typist's keystrokes, so a click
 * or key meant for what was there before cannot answer a card that just appeared under it; short
 * enough that someone who reads the card never waits for it.
 */
export const ARMING_DELAY_MS = 1000;

export interface Arming {
  /** The buttons take an answer (the card has been on screen for `delay`). */
  armed: Readonly<Ref<boolean>>;
  /** Starts the wait again (the card now says something else). */
  rearm(): void;
  /** For `pointerdown` and `keydown` on a button: notes whether this press began too early. */
  press(event: Event): void;
  /**
   * For the click event: whether this click answers. Only when armed and its press began after arming
   * (a mouse button held down while the card appeared, or a key held down, never answers).
   */
  accepts(): boolean;
}

/**
 * Input protection for a prompt that appears on its own (an approval card): its buttons stay
 * focusable and named but do nothing until it has been on screen for `delay`. When the page comes
 * back into view (a minimised window restored, its tab shown again) the wait starts again, so a
 * click meant for what was there before cannot answer a card the user has not seen yet. A hidden
 * page takes no input from a person, so the wait runs while hidden too (a card that appeared in a
 * background tab of the test browsers arms like any).
 */
export function useArming(delay: number = ARMING_DELAY_MS, doc: Document = document): Arming {
  const armed = ref(false);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let early = false;

  function rearm(): void {
    armed.value = false;
    clearTimeout(timer);
    timer = setTimeout(() => (armed.value = true), delay);
  }
  const onVisibility = () => {
    if (doc.visibilityState === 'visible') rearm();
  };
  onMounted(() => {
    rearm();
    doc.addEventListener('visibilitychange', onVisibility);
  });
  onUnmounted(() => {
    clearTimeout(timer);
    doc.removeEventListener('visibilitychange', onVisibility);
  });

  return {
    armed: readonly(armed),
    rearm,
    press(event) {
      early = !armed.value || (event as KeyboardEvent).repeat === true;
    },
    accepts() {
      const ok = armed.value && !early;
      early = false;
      return ok;
    },
  };
}
