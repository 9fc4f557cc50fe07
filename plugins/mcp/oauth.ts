import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** What is kept of one server's OAuth sign-in (a secret, like an API key). */
export interface OAuthState {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** The PKCE verifier of the sign-in under way. */
  verifier?: string;
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
    if (scope === 'all') await this.update({ client: undefined, tokens: undefined, verifier: undefined });
    else if (scope === 'client') await this.update({ client: undefined });
    else if (scope === 'tokens') await this.update({ tokens: undefined });
    else if (scope === 'verifier') await this.update({ verifier: undefined });
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
