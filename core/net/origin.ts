/**
 * The origin of an http(s) address (`https://mail.example`, the port when it is not the default);
 * '' for anything else: another scheme, a broken address. The security decisions that compare
 * sites (the approval gate's outbound rule, which address a saved key may go to, the tests'
 * local allow-list, a page's site) use this one definition.
 */
export function originOf(url: string | URL | undefined): string {
  if (!url) return '';
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : '';
  } catch {
    return '';
  }
}

/** Whether `a` and `b` are http(s) addresses of one origin (scheme, host and port); false for anything else. */
export function sameOrigin(a: string | URL | undefined, b: string | URL | undefined): boolean {
  const origin = originOf(a);
  return origin !== '' && origin === originOf(b);
}
