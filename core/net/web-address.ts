/**
 * The one parse of an address a tool is given (a tab to load, a page to fetch). The
 * tool's `prepare` runs it once, before the approval gate sees the call, and the gate's target and
 * the tool's work then use the same value: the parsed address's `href`. So the site the gate judges
 * is the site the browser reaches, whatever the model wrote around it.
 *
 * The parse is the WHATWG URL parser the browsers use (`new URL`), which already applies their
 * normalisation: leading and trailing C0 controls and spaces are stripped, tabs and newlines
 * anywhere are removed, backslashes become slashes, hosts are lower-cased, IDN hosts become
 * punycode, IPv4 in odd forms (`0x7f.1`, `2130706433`) becomes dotted decimal. Its `href` is what
 * the browser is handed, so no second parse can read it differently.
 */

/** The schemes a tool may load or fetch. */
const WEB = new Set(['http:', 'https:']);

/** An address a tool refuses, with the sentence the model reads. */
export class AddressError extends Error {
  override name = 'AddressError';
}

/** The start of a text for an error message: one line, control characters shown as `\u….` escapes. */
export function shownAddress(raw: string, max = 200): string {
  const cut = raw.length > max ? `${raw.slice(0, max)}…` : raw;
  // eslint-disable-next-line no-control-regex
  return cut.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Parses `raw` as the browser will, and checks it is an http(s) address with a host. Throws an
 * `AddressError` worded for the model (`what` starts the sentence: "… only loads").
 * Returns the parsed URL: hand its `href` on, never `raw`.
 */
export function parseWebAddress(raw: string, what = 'This tool only takes'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AddressError(`"${shownAddress(raw)}" is not a full address. Give one that starts with https:// or http://.`);
  }
  if (!WEB.has(url.protocol)) throw new AddressError(`${what} http:// and https:// addresses, not ${url.protocol} ones.`);
  if (!url.hostname) throw new AddressError(`"${shownAddress(raw)}" names no host. Give one like https://example.com/page.`);
  return url;
}
