import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpReachMode } from './guard';

/** What is kept of one server's OAuth sign-in (a secret, like an API key). */
export interface OAuthState {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** The PKCE verifier of the sign-in under way. */
  verifier?: string;
  /**
   * What the sign-in found (the authorization server and its metadata), learned at the settings
   * page: a run refreshes a token at this token endpoint and discovers nothing itself.
   */
  discovery?: OAuthDiscoveryState;
}

/** A run met a server that wants a sign-in this service has never done: only the settings page may. */
export class McpSignInNeeded extends Error {
  override name = 'McpSignInNeeded';
  constructor() {
    super('The server wants a sign-in, which is done only from Settings → Agent → MCP servers.');
  }
}

export interface OAuthStore {
  load(): Promise<OAuthState | undefined>;
  save(state: OAuthState | undefined): Promise<void>;
}

/**
 * The SDK's OAuth client side for one server: discovery, dynamic client registration, PKCE and
 * token refresh are the SDK's (`auth()`); this keeps what it learns in the store and, instead of
 * navigating a page, remembers the authorization URL for `signIn` (the browser's
 * `identity.launchWebAuthFlow`, started only from the settings page, never during a run).
 * Discovery too happens only while `mode.interactive` (the settings page): a run uses what the
 * sign-in found, and without it stops before any request (`McpSignInNeeded`).
 */
export class McpOAuthProvider implements OAuthClientProvider {
  private cache: OAuthState | undefined;
  private loaded = false;
  private pendingUrl: URL | undefined;
  private expectedState: string | undefined;
  /** Set once the SDK started an OAuth attempt for this server (it answered 401). */
  attempted = false;

  constructor(
    private readonly store: OAuthStore,
    readonly redirectUrl: string,
    private readonly mode: McpReachMode = { interactive: false },
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Sidequest',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  private async current(): Promise<OAuthState> {
    if (!this.loaded) {
      this.cache = (await this.store.load()) ?? {};
      this.loaded = true;
    }
    return (this.cache ??= {});
  }

  private async update(change: Partial<OAuthState>): Promise<void> {
    const next = { ...(await this.current()), ...change };
    for (const key of Object.keys(next) as Array<keyof OAuthState>) if (next[key] === undefined) delete next[key];
    this.cache = next;
    await this.store.save(Object.keys(next).length ? next : undefined);
  }

  /** Where the SDK starts: what the sign-in found, or (at the settings page only) nothing, to discover. */
  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    this.attempted = true;
    const found = (await this.current()).discovery;
    if (!found && !this.mode.interactive) throw new McpSignInNeeded();
    return found;
  }
  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.update({ discovery });
  }

  /** The token endpoint the sign-in found (without query), the one address beyond the server a run may reach. */
  async tokenEndpoint(): Promise<string | undefined> {
    const found = (await this.current()).discovery;
    if (!found) return undefined;
    try {
      // The SDK's fallback when the metadata names none: /token at the authorization server.
      const url = new URL(found.authorizationServerMetadata?.token_endpoint ?? '/token', found.authorizationServerUrl);
      return `${url.origin}${url.pathname}`;
    } catch {
      return undefined;
    }
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    this.attempted = true;
    return (await this.current()).client;
  }
  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.update({ client });
  }
  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.current()).tokens;
  }
  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.update({ tokens });
  }
  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.update({ verifier });
  }
  async codeVerifier(): Promise<string> {
    const verifier = (await this.current()).verifier;
    if (!verifier) throw new Error('No sign-in is under way for this server.');
    return verifier;
  }
  /** The `state` parameter of the next authorization request, checked when the browser comes back. */
  state(): string {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    this.expectedState = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    return this.expectedState;
  }
  redirectToAuthorization(url: URL): void {
    this.pendingUrl = url;
  }
  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all') await this.update({ client: undefined, tokens: undefined, verifier: undefined, discovery: undefined });
    else if (scope === 'client') await this.update({ client: undefined });
    else if (scope === 'tokens') await this.update({ tokens: undefined });
    else if (scope === 'verifier') await this.update({ verifier: undefined });
    else if (scope === 'discovery') await this.update({ discovery: undefined });
  }

  /** Whether a sign-in produced tokens. */
  async signedIn(): Promise<boolean> {
    return Boolean((await this.current()).tokens);
  }

  /** The authorization URL the SDK asked to open, once. */
  takeAuthorizationUrl(): URL | undefined {
    const url = this.pendingUrl;
    this.pendingUrl = undefined;
    return url;
  }

  /** The authorization code from the URL the browser was sent back to; throws the server's refusal. */
  codeFrom(redirected: string): string {
    let url: URL;
    try {
      url = new URL(redirected);
    } catch {
      throw new Error('The sign-in did not come back with an answer.');
    }
    const error = url.searchParams.get('error');
    if (error) {
      const said = url.searchParams.get('error_description');
      throw new Error(`The sign-in was refused (${error.slice(0, 80)}${said ? `: ${said.slice(0, 200)}` : ''}).`);
    }
    if (this.expectedState && url.searchParams.get('state') !== this.expectedState) throw new Error('The sign-in answer does not belong to this request (its state differs).');
    const code = url.searchParams.get('code');
    if (!code) throw new Error('The sign-in came back without an authorization code.');
    return code;
  }
}
