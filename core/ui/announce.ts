/**
 * A polite live region of the page, for what screen readers should hear once (a finished answer),
 * instead of a region that reads every streamed token.
 */
export interface Announcer {
  say(text: string): void;
  dispose(): void;
}

export function createAnnouncer(doc: Document = document): Announcer {
  const region = doc.createElement('div');
  region.className = 'sr-only';
  region.setAttribute('role', 'status');
  region.setAttribute('aria-live', 'polite');
  region.setAttribute('aria-atomic', 'true');
  region.dataset.announcer = '';
  doc.body.append(region);
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    say(text) {
      // Emptied first, so the same words said twice are heard twice.
      region.textContent = '';
      clearTimeout(timer);
      timer = setTimeout(() => (region.textContent = text), 100);
    },
    dispose() {
      clearTimeout(timer);
      region.remove();
    },
  };
}
