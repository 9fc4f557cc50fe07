/** The host of an address or origin, for showing to the user ("" when there is none). */
export function siteOf(url: string | undefined): string {
  if (!url) return '';
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}
