/**
 * Saves text as a file from an extension page: a Blob URL and an `<a download>` click, which
 * both browsers honour in extension pages (the settings page, the sidebar in Chrome's side panel
 * and Firefox's sidebar) without the `downloads` permission. The URL is revoked a minute later.
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
    throw new Error(`${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; Sidequest imports files of at most ${(maxBytes / 1024 / 1024).toFixed(0)} MB.`);
  }
  return file.text();
}
