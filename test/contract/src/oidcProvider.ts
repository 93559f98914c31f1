/**
 * A real OpenID Connect provider for tests: `oidc-provider` on a free loopback port (plain http), with one
 * confidential client (`client_secret_basic`, PKCE required), accounts the test chooses, and a signing key the
 * test also holds, so it can mint logout tokens of its own, valid or broken in one precise way.
 *
 * A browser is simulated without a browser: `signIn` follows the provider's redirects with a cookie jar, fills
 * the provider's development login and consent forms (`features.devInteractions`: a POST to
 * `/interaction/:uid` with `prompt=login&login=<accountId>`, then `prompt=consent`) and stops at the redirect to
 * the client's callback, which it returns without following. The same browser can later sign out at the
 * provider (`endSession`), which makes the provider send real back-channel logout tokens.
 *
 * The signing key is made with `node:crypto` rather than jose (not a dependency of this package); it is an
 * RS256 key exported as a JWK, which is what the provider and the tokens below need.
 */
import { createHmac, generateKeyPairSync, type KeyObject, randomBytes, randomUUID, sign } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout"

/** What the provider says about a person; `groups` is released under the `openid` scope (always). */
export interface OidcAccount {
  readonly email?: string | undefined
  readonly emailVerified?: boolean | undefined
  readonly groups?: ReadonlyArray<string> | undefined
}

export interface OidcProviderOptions {
  /** Where the client may be sent back to; each must match the `redirect_uri` of an authorization request. */
  readonly redirectUris: ReadonlyArray<string>
  /** Given: the provider sends back-channel logout tokens (with `sid`) there on `endSession`. */
  readonly backchannelLogoutUri?: string | undefined
  /** People by account id (the `sub`); tests may change the map while the provider runs. */
  readonly accounts?: Record<string, OidcAccount>
  readonly clientId?: string
  /** Random by default; given when the client must be configured before the provider starts. */
  readonly clientSecret?: string
  /** The port to listen on; a free one by default. */
  readonly port?: number
}

/**
 * What `mintLogoutToken` signs with: a private key (RSA SHA-256), a secret key (HMAC SHA-256, for algorithm
 * confusion attempts), or `"none"` for an unsigned token.
 */
export type SigningKey = KeyObject | "none"

export interface MintOptions {
  /** Merged over `{ alg: "RS256", typ: "logout+jwt", kid }`; a member set to `undefined` is removed. */
  readonly header?: Readonly<Record<string, unknown>>
  /** The provider's own key unless told otherwise. */
  readonly key?: SigningKey
}

/** One simulated browser: its cookies at the provider persist across calls, like a real one. */
export interface OidcBrowser {
  /** Signs `accountId` in (login and consent as needed); resolves with the callback URL, not followed. */
  readonly signIn: (authorizationUrl: string | URL, accountId: string) => Promise<URL>
  /** Aborts the login; resolves with the callback URL carrying `error=access_denied`. */
  readonly deny: (authorizationUrl: string | URL) => Promise<URL>
  /**
   * Signs out at the provider (RP-initiated logout, "sign out of everything"); the provider sends its
   * back-channel logout tokens before this resolves.
   */
  readonly endSession: () => Promise<void>
}

export interface OidcProvider {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  readonly accounts: Map<string, OidcAccount>
  /** The provider's signing key (private), with its `kid`. */
  readonly key: KeyObject
  readonly kid: string
  /** A fresh browser with an empty cookie jar. */
  readonly browser: () => OidcBrowser
  /** `browser().signIn(...)`: a sign-in in a browser of its own. */
  readonly signIn: (authorizationUrl: string | URL, accountId: string) => Promise<URL>
  readonly deny: (authorizationUrl: string | URL) => Promise<URL>
  /** A JWT with exactly these claims, signed as `options` say. */
  readonly mintLogoutToken: (claims: Readonly<Record<string, unknown>>, options?: MintOptions) => string
  /** The claims of a valid logout token for this provider and client (fresh `iat`, `exp`, `jti`), with overrides. */
  readonly logoutClaims: (overrides?: Readonly<Record<string, unknown>>) => Record<string, unknown>
  /** Back-channel logout results the provider reported: the status our endpoint answered, or the error. */
  readonly backchannelResults: ReadonlyArray<{ readonly ok: boolean; readonly detail: string }>
  readonly stop: () => Promise<void>
}

/** A port that was free a moment ago, for a provider that must start after its client (an outage that ends). */
export const freePort = async (): Promise<number> => {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/** A fresh RS256 key pair; `otherKey()` in a test gives a key the provider does not publish. */
export const generateSigningKey = (): KeyObject => generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey

const base64url = (input: string | Buffer) => Buffer.from(input).toString("base64url")

const mint = (claims: Readonly<Record<string, unknown>>, header: Record<string, unknown>, key: SigningKey) => {
  const definedHeader = Object.fromEntries(Object.entries(header).filter(([, value]) => value !== undefined))
  const input = `${base64url(JSON.stringify(definedHeader))}.${base64url(JSON.stringify(claims))}`
  if (key === "none") return `${input}.`
  if (key.type === "secret") return `${input}.${createHmac("sha256", key).update(input).digest("base64url")}`
  return `${input}.${base64url(sign("sha256", Buffer.from(input), key))}`
}

/** The structural subset of oidc-provider 9 used here (the package ships no type declarations). */
interface ProviderInstance {
  callback: () => (request: IncomingMessage, response: ServerResponse) => void
  on: (event: string, listener: (...args: Array<unknown>) => void) => void
}
type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance

/** A cookie jar for one origin; paths and expiry beyond deletion are ignored, which the provider's flows allow. */
const cookieJar = () => {
  const cookies = new Map<string, string>()
  return {
    header: () => [...cookies].map(([name, value]) => `${name}=${value}`).join("; "),
    store: (response: Response) => {
      for (const line of response.headers.getSetCookie()) {
        const [pair = "", ...attributes] = line.split(";")
        const at = pair.indexOf("=")
        const name = pair.slice(0, at).trim()
        const value = pair.slice(at + 1).trim()
        const expired = attributes.some((attribute) => {
          const [key = "", raw = ""] = attribute.trim().split("=")
          if (key.toLowerCase() === "max-age") return Number(raw) <= 0
          if (key.toLowerCase() === "expires") return Date.parse(raw) <= Date.now()
          return false
        })
        if (expired || value === "") cookies.delete(name)
        else cookies.set(name, value)
      }
    },
  }
}

const hiddenInput = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]

export const startOidcProvider = async (options: OidcProviderOptions): Promise<OidcProvider> => {
  // Loaded here, not at the top: every suite imports this package, and only OIDC tests need the provider.
  // @ts-expect-error -- oidc-provider 9 ships no type declarations; the subset used is typed above.
  const providerModule: { default: ProviderConstructor } = await import("oidc-provider")
  const Provider = providerModule.default

  const clientId = options.clientId ?? "coffer-test"
  const clientSecret = options.clientSecret ?? randomBytes(24).toString("base64url")
  const key = generateSigningKey()
  const kid = randomUUID()
  const accounts = new Map(Object.entries(options.accounts ?? {}))
  const backchannelResults: Array<{ ok: boolean; detail: string }> = []

  let handler: ((request: IncomingMessage, response: ServerResponse) => void) | undefined
  const server = createServer((request, response) => handler?.(request, response))
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        token_endpoint_auth_method: "client_secret_basic",
        grant_types: ["authorization_code"],
        response_types: ["code"],
        redirect_uris: [...options.redirectUris],
        ...(options.backchannelLogoutUri === undefined
          ? {}
          : { backchannel_logout_uri: options.backchannelLogoutUri, backchannel_logout_session_required: true }),
      },
    ],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: { enabled: true },
    },
    claims: { openid: ["sub", "groups"], email: ["email", "email_verified"] },
    findAccount: (_ctx: unknown, accountId: string) => {
      const account = accounts.get(accountId)
      if (account === undefined) return undefined
      return {
        accountId,
        claims: () => ({
          sub: accountId,
          ...(account.email === undefined ? {} : { email: account.email }),
          ...(account.emailVerified === undefined ? {} : { email_verified: account.emailVerified }),
          ...(account.groups === undefined ? {} : { groups: [...account.groups] }),
        }),
      }
    },
    jwks: { keys: [{ ...key.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" }] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    // Explicit lifetimes keep the provider from warning about its defaults on every start.
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
    clientBasedCORS: () => false,
    // The provider refuses to call loopback addresses (SSRF protection, through its own dispatcher); the
    // back-channel logout endpoint under test is on loopback, so its calls go through the plain fetch.
    fetch: (url: string, init: RequestInit & { dispatcher?: unknown }) => {
      const { dispatcher: _ssrfGuard, ...plain } = init
      return fetch(url, plain)
    },
  })
  provider.on("backchannel.success", () => backchannelResults.push({ ok: true, detail: "200" }))
  provider.on("backchannel.error", (_ctx, error) =>
    backchannelResults.push({ ok: false, detail: error instanceof Error ? error.message : String(error) }),
  )
  // Errors the provider reports to its own server log are expected in tests that send it bad input.
  provider.on("server_error", () => undefined)
  handler = provider.callback()

  const browser = (): OidcBrowser => {
    const jar = cookieJar()
    const request = async (url: string | URL, init: RequestInit = {}) => {
      const headers = new Headers(init.headers)
      const cookie = jar.header()
      if (cookie !== "") headers.set("cookie", cookie)
      const response = await fetch(url, { ...init, headers, redirect: "manual" })
      jar.store(response)
      return response
    }
    const atProvider = (url: URL) => url.origin === issuer

    /** Follows the provider's redirects, answering its pages with `answer`, until one leaves the provider. */
    const drive = async (start: string | URL, answer: (page: URL, html: string) => Promise<Response>) => {
      let response = await request(start)
      let url = new URL(start)
      for (let step = 0; step < 20; step++) {
        const location = response.headers.get("location")
        if (location !== null) {
          url = new URL(location, url)
          if (!atProvider(url)) return url
          response = await request(url)
          continue
        }
        const html = await response.text()
        if (response.status !== 200) throw new Error(`provider answered ${response.status} at ${url.pathname}: ${html}`)
        response = await answer(url, html)
      }
      throw new Error("too many redirects at the provider")
    }

    const form = (url: URL, fields: Record<string, string>) =>
      request(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields),
      })

    return {
      signIn: (authorizationUrl, accountId) =>
        drive(authorizationUrl, (page, html) => {
          const prompt = hiddenInput(html, "prompt")
          if (prompt === "login") return form(page, { prompt: "login", login: accountId, password: "test" })
          if (prompt === "consent") return form(page, { prompt: "consent" })
          throw new Error(`unexpected provider page at ${page.pathname}`)
        }),
      deny: (authorizationUrl) => drive(authorizationUrl, (page) => request(new URL(`${page.pathname}/abort`, page))),
      endSession: async () => {
        const page = await request(new URL(`/session/end?client_id=${encodeURIComponent(clientId)}`, issuer))
        const xsrf = hiddenInput(await page.text(), "xsrf")
        if (xsrf === undefined) throw new Error(`no logout form at the provider (status ${page.status})`)
        const done = await form(new URL("/session/end/confirm", issuer), { xsrf, logout: "yes" })
        await done.text()
      },
    }
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    key,
    kid,
    browser,
    signIn: (authorizationUrl, accountId) => browser().signIn(authorizationUrl, accountId),
    deny: (authorizationUrl) => browser().deny(authorizationUrl),
    mintLogoutToken: (claims, mintOptions = {}) =>
      mint(claims, { alg: "RS256", typ: "logout+jwt", kid, ...mintOptions.header }, mintOptions.key ?? key),
    logoutClaims: (overrides = {}) => {
      const now = Math.floor(Date.now() / 1000)
      return {
        iss: issuer,
        aud: clientId,
        iat: now,
        exp: now + 120,
        jti: randomUUID(),
        events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
        ...overrides,
      }
    },
    backchannelResults,
    stop: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
