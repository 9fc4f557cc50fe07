import { SaidError } from '@/core/i18n/catalog';

/**
 * Saves text as a file from an extension page: a Blob URL and an `<a download>` click, without
 * the `downloads` permission. Checked end to end in Chromium and Firefox from the settings page
 * and the sidebar page opened in a tab (the real side panel and sidebar cannot be opened
 * headless). The URL is revoked a minute later.
 */
export function downloadText(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Reads a file the user picked, refusing one larger than `maxBytes` before reading it. */
export async function readPickedFile(file: File, maxBytes: number): Promise<string> {
  if (file.size > maxBytes) {
    throw new SaidError('errors.import.fileTooLarge', { name: file.name, size: (file.size / 1024 / 1024).toFixed(1), max: (maxBytes / 1024 / 1024).toFixed(0) });
  }
  return file.text();
}
