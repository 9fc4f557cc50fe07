/**
 * Addresses on the user's own computer or network: the loopback, private and link-local ranges
 * and single-label names (`http://router/`). A web page can ask the agent to fetch one ("read
 * http://192.168.1.1/admin"), so tools that reach the network refuse them unless the user allowed
 * it through the approval gate (the model providers' own addresses are always allowed). Checked on
 * the URL the model gave and on every redirect hop.
 *
 * This is the one test of "local" in the code: by name here (`localNetworkKind`, `hostKind`), and
 * by the IP address a name resolved to or a response came from (`addressKind`, used with what the
 * browser tells: `core/net/address.ts`), so `127.0.0.1.nip.io` or an intranet name that resolves to
 * 10.x counts as local too. `isLoopbackHost` (where plain http:// may carry a key or token) is the
 * loopback part of the same test. Nothing else in the code may decide "local" or "loopback" by
 * itself: a security decision about an address calls one of these.
 *
 * What counts (tests/unit/local-network.test.ts has a case for each):
 * - loopback: `localhost`, `*.localhost`, 127.0.0.0/8, 0.0.0.0/8, `::1`, `::`;
 * - private: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), fc00::/7, and the names
 *   `*.local`, `*.internal`, `*.lan`, `*.home.arpa`;
 * - link-local: 169.254/16, fe80::/10;
 * - single-label: a name without a dot (`router`), an empty or unreadable host;
 * - an IPv4-mapped or IPv4-compatible IPv6 address (`::ffff:10.0.0.1`) is judged by its IPv4;
 *   numeric forms of IPv4 (`2130706433`, `0x7f.1`, `0177.0.0.1`) and trailing dots are read the
 *   way the browser's URL parser reads them.
 */

/** Why an address counts as local, or null when it is a public one. */
export type LocalNetworkKind = 'loopback' | 'private' | 'link-local' | 'single-label';

/** The error code of a refused local address (ToolResult `code`). */
export const LOCAL_NETWORK_CODE = 'local_network';

function ipv4(host: string): number[] | null {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const nums = parts.map(Number);
  return nums.every((n) => n <= 255) ? nums : null;
}

function ipv4Kind([a, b]: number[]): LocalNetworkKind | null {
  if (a === 127 || a === 0) return 'loopback';
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 100 && b! >= 64 && b! <= 127) return 'private'; // carrier-grade NAT, 100.64/10
  if (a === 169 && b === 254) return 'link-local';
  return null;
}

/**
 * A host name as the browser's URL parser leaves it: the other spellings of an IPv4 address
 * (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) become dotted. `URL.hostname` is already in this
 * form; a name from anywhere else (DNS, a test, a caller that did not parse a URL) may not be.
 */
function canonicalIpv4(host: string): string {
  if (!/^[0-9a-fx.]+$/i.test(host) || !/\d/.test(host)) return host;
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return host;
  }
}

/** Expands an IPv6 address (no brackets) to its eight 16-bit groups, or null. */
function ipv6Groups(host: string): number[] | null {
  if (!host.includes(':')) return null;
  let text = host;
  // A trailing dotted IPv4 (`::ffff:1.2.3.4`): the URL parser already turns it into hex, but be safe.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4(dotted[1]!);
    if (!v4) return null;
    text = `${text.slice(0, -dotted[1]!.length)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const [head, tail, extra] = text.split('::');
  if (extra !== undefined) return null;
  const left = head ? head.split(':') : [];
  const right = tail !== undefined ? (tail ? tail.split(':') : []) : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return null;
  const groups = [...left, ...Array(tail === undefined ? 0 : missing).fill('0'), ...right].map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN));
  return groups.length === 8 && groups.every((g) => !Number.isNaN(g)) ? groups : null;
}

function ipv6Kind(g: number[]): LocalNetworkKind | null {
  if (g.slice(0, 7).every((x) => x === 0) && (g[7] === 1 || g[7] === 0)) return 'loopback'; // ::1, ::
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible addresses: judge the IPv4 inside.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    return ipv4Kind([g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255]);
  }
  if ((g[0]! & 0xfe00) === 0xfc00) return 'private'; // fc00::/7
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  return null;
}

/**
 * What kind of local address an IP address is (as DNS or the browser's `webRequest` gives it:
 * dotted IPv4, or IPv6 with or without brackets), or null for a public one. Anything that is not
 * an IP address at all is null: this judges addresses, `hostKind` judges names.
 */
export function addressKind(ip: string): LocalNetworkKind | null {
  const text = ip.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, ''); // no zone id (fe80::1%eth0)
  const v4 = ipv4(text) ?? ipv4(canonicalIpv4(text));
  if (v4) return ipv4Kind(v4);
  const groups = ipv6Groups(text);
  return groups ? ipv6Kind(groups) : null;
}

/**
 * What kind of local address a URL's host name is (as `URL.hostname` gives it, IPv6 in brackets),
 * or null for a public name. Only the name is judged: a public name may still resolve to a local
 * address (see `addressKind`).
 */
export function hostKind(hostname: string): LocalNetworkKind | null {
  let host = hostname.toLowerCase();
  // IPv6 in brackets (`URL.hostname`), or bare (`::1` as a caller may hand it).
  if ((host.startsWith('[') && host.endsWith(']')) || host.includes(':')) {
    const groups = ipv6Groups(host.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, ''));
    return groups ? ipv6Kind(groups) : 'single-label';
  }
  host = canonicalIpv4(host.replace(/\.+$/, ''));
  const v4 = ipv4(host);
  if (v4) return ipv4Kind(v4);
  if (!host) return 'single-label';
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  if (host.endsWith('.local') || host.endsWith('.internal') || host.endsWith('.lan') || host.endsWith('.home.arpa')) return 'private';
  if (!host.includes('.')) return 'single-label';
  return null;
}

/** What kind of local address `url` points at by its name, or null for a public name (or no URL at all). */
export function localNetworkKind(url: string | URL): LocalNetworkKind | null {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return null;
  }
  // The URL parser has already turned `http://2130706433/`, `0x7f.1` and friends into dotted IPv4.
  return hostKind(parsed.hostname);
}

/**
 * A host on this computer (`localhost`, `*.localhost`, 127/8, 0/8, `::1`, `::`, and IPv4-mapped
 * forms of them): where plain http:// may carry credentials (a provider's API key, an MCP server's
 * token) and where the tests' endpoint overrides may point.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostKind(hostname) === 'loopback';
}

/** True when `url` points at the user's own computer or local network (see `localNetworkKind`). */
export function isLocalNetworkUrl(url: string | URL): boolean {
  return localNetworkKind(url) !== null;
}

const WHAT: Record<LocalNetworkKind, string> = {
  loopback: 'this computer (a loopback address)',
  private: 'the local network (a private address)',
  'link-local': 'the local network link (a link-local address)',
  'single-label': 'the local network (a name without a domain, like a router or an intranet host)',
};

/**
 * The refusal the model reads: what was refused, why, and that the user can allow it. `address`:
 * the IP address the name resolved to or the answer came from, when the name itself looked public;
 * `answered`: the server had already answered (the browser tells the address only then), and its
 * answer was withheld rather than not requested.
 */
export class LocalNetworkError extends Error {
  override name = 'LocalNetworkError';
  readonly code = LOCAL_NETWORK_CODE;
  constructor(
    readonly url: string,
    readonly kind: LocalNetworkKind,
    readonly hop?: string,
    readonly address?: string,
    readonly answered = false,
  ) {
    super(
      `${url} ${address ? `is served from ${address}, which is on ${WHAT[kind]}` : `points at ${WHAT[kind]}`}` +
        `${hop ? ` (a redirect from ${hop} led there)` : ''}, so ${answered ? 'its answer was withheld' : 'it was not requested'}: ` +
        'web pages could otherwise use the agent to reach devices and services that only this computer can see. ' +
        'Only the user can allow such an address (they are asked when a call names it); if they want it read, ask them to open it in a tab.',
    );
  }
}
