/**
 * The OIDC adapter against a real provider (`oidc-provider`, started here): the whole sign-in, every way it
 * must fail, and back-channel logout tokens, valid ones from the provider itself and minted ones broken in
 * exactly one way each.
 */
import { createPublicKey, createSecretKey } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { freePort, generateSigningKey, type OidcProvider, startOidcProvider } from "@coffer/contract"
import type { Identity } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as OidcIdentity from "./OidcIdentity.js"

const redirectUri = "http://127.0.0.1:9/api/auth/oauth2/callback/oidc"

type Service = Identity.Identity["Service"]

const identityFor = (provider: OidcProvider, overrides: Partial<OidcIdentity.Options> = {}) =>
  Effect.runPromise(
    OidcIdentity.make({
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: Redacted.make(provider.clientSecret),
      name: "Test provider",
      ...overrides,
    }),
  )

/** The reason an effect failed with; a success fails the test (the flipped effect fails with the value). */
const reasonOf = <A>(effect: Effect.Effect<A, Identity.IdentityError>) =>
  Effect.runPromise(
    effect.pipe(
      Effect.flip,
      Effect.map((error) => error.reason),
    ),
  )

describe("OidcIdentity against oidc-provider", () => {
  let provider: OidcProvider
  let identity: Service
  // Where the provider delivers real back-channel logout tokens.
  const delivered: Array<string> = []
  const receiver = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk) => {
      body += chunk
    })
    request.on("end", () => {
      delivered.push(new URLSearchParams(body).get("logout_token") ?? "")
      response.writeHead(200).end()
    })
  })

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    provider = await startOidcProvider({
      redirectUris: [redirectUri],
      backchannelLogoutUri: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/logout`,
      accounts: {
        alice: { email: "alice@example.com", groups: ["editors"] },
        nomail: {},
        unverified: { email: "mallory@example.com", emailVerified: false },
      },
    })
    identity = await identityFor(provider)
  })
  afterAll(async () => {
    await provider?.stop()
    receiver.close()
  })

  const begin = () => Effect.runPromise(identity.start({ redirectUri, returnTo: "/projects" }))

  describe("sign-in", () => {
    it("starts with PKCE S256, state and nonce, and keeps what the callback needs", async () => {
      const { url, pending } = await begin()
      const authorization = new URL(url)
      expect(authorization.origin).toBe(provider.issuer)
      expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
        client_id: provider.clientId,
        redirect_uri: redirectUri,
        response_type: "code",
        code_challenge_method: "S256",
        state: pending.state,
        nonce: pending.nonce,
        scope: "openid email profile",
      })
      expect(authorization.searchParams.get("code_challenge")).not.toBe(pending.codeVerifier)
      expect(pending.returnTo).toBe("/projects")
      const again = await begin()
      expect(again.pending.state).not.toBe(pending.state)
      expect(again.pending.nonce).not.toBe(pending.nonce)
      expect(again.pending.codeVerifier).not.toBe(pending.codeVerifier)
    })

    it("finishes with issuer, subject, e-mail and the claims (groups from UserInfo)", async () => {
      const { url, pending } = await begin()
      const callback = await provider.signIn(url, "alice")
      expect(callback.origin + callback.pathname).toBe(redirectUri)
      const signedIn = await Effect.runPromise(identity.finish({ redirectUri, callbackUrl: callback.href, pending }))
      expect(signedIn).toMatchObject({ issuer: provider.issuer, subject: "alice", email: "alice@example.com" })
      expect(signedIn.claims.groups).toEqual(["editors"])
      expect(signedIn.claims.sid).toEqual(expect.any(String))
    })

    it("refuses a callback whose state is not the pending one", async () => {
      const { url, pending } = await begin()
      const callback = await provider.signIn(url, "alice")
      const other = await begin()
      const finish = identity.finish({
        redirectUri,
        callbackUrl: callback.href,
        pending: { ...pending, state: other.pending.state },
      })
      expect(await reasonOf(finish)).toBe("rejected")
    })

    it("refuses an ID token whose nonce is not the pending one", async () => {
      const { url, pending } = await begin()
      const callback = await provider.signIn(url, "alice")
      const other = await begin()
      const finish = identity.finish({
        redirectUri,
        callbackUrl: callback.href,
        pending: { ...pending, nonce: other.pending.nonce },
      })
      expect(await reasonOf(finish)).toBe("rejected")
    })

    it("refuses a wrong code verifier and a code used twice", async () => {
      const { url, pending } = await begin()
      const callback = await provider.signIn(url, "alice")
      const other = await begin()
      const wrongVerifier = identity.finish({
        redirectUri,
        callbackUrl: callback.href,
        pending: { ...pending, codeVerifier: other.pending.codeVerifier },
      })
      expect(await reasonOf(wrongVerifier)).toBe("rejected")

      const fresh = await begin()
      const freshCallback = await provider.signIn(fresh.url, "alice")
      const once = identity.finish({ redirectUri, callbackUrl: freshCallback.href, pending: fresh.pending })
      await Effect.runPromise(once)
      expect(await reasonOf(once)).toBe("rejected")
    })

    it("refuses a callback with a forged code", async () => {
      const { pending } = await begin()
      const forged = `${redirectUri}?code=forged&state=${pending.state}&iss=${encodeURIComponent(provider.issuer)}`
      expect(await reasonOf(identity.finish({ redirectUri, callbackUrl: forged, pending }))).toBe("rejected")
    })

    it("answers `refused` when the person declines at the provider", async () => {
      const { url, pending } = await begin()
      const callback = await provider.deny(url)
      expect(callback.searchParams.get("error")).toBe("access_denied")
      expect(await reasonOf(identity.finish({ redirectUri, callbackUrl: callback.href, pending }))).toBe("refused")
    })

    it("answers `email` without an e-mail address, or with one the provider has not verified", async () => {
      for (const account of ["nomail", "unverified"]) {
        const { url, pending } = await begin()
        const callback = await provider.signIn(url, account)
        expect(await reasonOf(identity.finish({ redirectUri, callbackUrl: callback.href, pending }))).toBe("email")
      }
    })

    it("refuses a plain-http issuer that is not on a loopback address", async () => {
      const build = OidcIdentity.make({ issuer: "http://idp.example.com", clientId: "c", name: "x" })
      const exit = await Effect.runPromiseExit(build)
      expect(Exit.isFailure(exit)).toBe(true)
    })
  })

  describe("an unreachable provider", () => {
    it("answers `unavailable`, then works once the provider is up, without being rebuilt", async () => {
      const port = await freePort()
      const issuer = `http://127.0.0.1:${port}`
      // Built while nothing listens: building must not fail, only uses.
      const early = await Effect.runPromise(
        OidcIdentity.make({ issuer, clientId: "coffer-test", clientSecret: Redacted.make("unknown"), name: "Late" }),
      )
      expect(await reasonOf(early.start({ redirectUri, returnTo: "/" }))).toBe("unavailable")
      expect(await reasonOf(early.verifyLogoutToken("a.b.c"))).toBe("unavailable")

      const late = await startOidcProvider({ redirectUris: [redirectUri], port, accounts: { bob: { email: "b@x" } } })
      try {
        // The first instance recovers by itself: its failed discovery was not kept.
        const { url } = await Effect.runPromise(early.start({ redirectUri, returnTo: "/" }))
        expect(new URL(url).origin).toBe(issuer)
      } finally {
        await late.stop()
      }
    })

    it("logs why discovery failed, for the operator, where the client is told only `unavailable`", async () => {
      const logged: Array<string> = []
      const capture = Logger.layer([
        Logger.make((options) => {
          logged.push(`${options.logLevel}: ${[options.message].flat().map(String).join(" ")}`)
        }),
      ])
      const reasonLogged = async (issuer: string) => {
        logged.length = 0
        const client = await Effect.runPromise(
          OidcIdentity.make({ issuer, clientId: "coffer-test", clientSecret: Redacted.make("a-secret"), name: "T" }),
        )
        const reason = await reasonOf(Effect.provide(client.start({ redirectUri, returnTo: "/" }), capture))
        return { reason, logged: [...logged] }
      }
      // Nothing listens: a provider that is down.
      const closed = `http://127.0.0.1:${await freePort()}`
      expect(await reasonLogged(closed)).toEqual({
        reason: "unavailable",
        logged: [expect.stringMatching(/^Warn: OIDC: discovery of the issuer .* failed: .*ECONNREFUSED/)],
      })
      // The server answers, but the issuer names no provider there: a setting to fix, not an outage.
      const mistyped = await reasonLogged(`${provider.issuer}/realms/mistyped`)
      expect(mistyped.reason).toBe("unavailable")
      expect(mistyped.logged).toEqual([
        expect.stringMatching(
          /^Warn: OIDC: discovery of the issuer .* failed: .*HTTP 404 from .*\/realms\/mistyped\/\.well-known\/openid-configuration$/,
        ),
      ])
      expect(mistyped.logged.join("\n")).not.toContain("a-secret")
    })

    it("answers `unavailable` when the provider goes away after discovery", async () => {
      const port = await freePort()
      const gone = await startOidcProvider({ redirectUris: [redirectUri], port, accounts: { bob: { email: "b@x" } } })
      const client = await identityFor(gone)
      const { url, pending } = await Effect.runPromise(client.start({ redirectUri, returnTo: "/" }))
      const callback = await gone.signIn(url, "bob")
      await gone.stop()
      expect(await reasonOf(client.finish({ redirectUri, callbackUrl: callback.href, pending }))).toBe("unavailable")
    })
  })

  describe("back-channel logout tokens", () => {
    const verify = (token: string) => identity.verifyLogoutToken(token)
    const now = () => Math.floor(Date.now() / 1000)

    it("accepts the provider's own logout token, with the sid of the signed-in session", async () => {
      const browser = provider.browser()
      const { url, pending } = await begin()
      const callback = await browser.signIn(url, "alice")
      const signedIn = await Effect.runPromise(identity.finish({ redirectUri, callbackUrl: callback.href, pending }))
      delivered.length = 0
      await browser.endSession()
      expect(delivered).toHaveLength(1)
      const logout = await Effect.runPromise(verify(delivered[0] ?? ""))
      expect(logout).toEqual({
        issuer: provider.issuer,
        subject: "alice",
        sessionId: signedIn.claims.sid,
        tokenId: expect.any(String),
      })
    })

    it("accepts a minted token with sub only, sid only, or without typ and exp", async () => {
      const subOnly = await Effect.runPromise(verify(provider.mintLogoutToken(provider.logoutClaims({ sub: "alice" }))))
      expect(subOnly).toMatchObject({ subject: "alice", sessionId: undefined })
      const sidOnly = await Effect.runPromise(verify(provider.mintLogoutToken(provider.logoutClaims({ sid: "s-1" }))))
      expect(sidOnly).toMatchObject({ subject: undefined, sessionId: "s-1" })
      const bare = provider.mintLogoutToken(provider.logoutClaims({ sub: "alice", exp: undefined }), {
        header: { typ: undefined },
      })
      expect(await Effect.runPromise(verify(bare))).toMatchObject({ subject: "alice" })
      const audienceList = provider.logoutClaims({ sub: "alice", aud: ["other", provider.clientId] })
      expect(await Effect.runPromise(verify(provider.mintLogoutToken(audienceList)))).toMatchObject({
        subject: "alice",
      })
    })

    const claims = (overrides: Record<string, unknown> = {}) => provider.logoutClaims({ sub: "alice", ...overrides })
    const event = OidcIdentity.BACKCHANNEL_LOGOUT_EVENT
    // Each token differs from a valid one in one way only; the message proves which check refused it.
    const invalid: ReadonlyArray<readonly [string, () => string, string]> = [
      ["a bad signature", () => provider.mintLogoutToken(claims(), { key: generateSigningKey() }), "signature"],
      [
        "an unknown key id",
        () => provider.mintLogoutToken(claims(), { header: { kid: "unknown" } }),
        "no applicable key",
      ],
      ["alg none", () => provider.mintLogoutToken(claims(), { header: { alg: "none" }, key: "none" }), '"alg"'],
      [
        "HS256 keyed with the provider's public key",
        () =>
          provider.mintLogoutToken(claims(), {
            header: { alg: "HS256" },
            key: createSecretKey(Buffer.from(createPublicKey(provider.key).export({ format: "pem", type: "spki" }))),
          }),
        '"alg"',
      ],
      ["a wrong typ", () => provider.mintLogoutToken(claims(), { header: { typ: "JWT" } }), '"typ"'],
      ["a wrong iss", () => provider.mintLogoutToken(claims({ iss: "http://evil" })), '"iss"'],
      ["a wrong aud", () => provider.mintLogoutToken(claims({ aud: "someone-else" })), '"aud"'],
      ["no events", () => provider.mintLogoutToken(claims({ events: undefined })), '"events"'],
      ["events that is not an object", () => provider.mintLogoutToken(claims({ events: "logout" })), '"events"'],
      ["events without the logout member", () => provider.mintLogoutToken(claims({ events: { x: {} } })), '"events"'],
      [
        "a logout event that is not an object",
        () => provider.mintLogoutToken(claims({ events: { [event]: true } })),
        '"events"',
      ],
      [
        "a logout event that is an array",
        () => provider.mintLogoutToken(claims({ events: { [event]: [] } })),
        '"events"',
      ],
      ["a nonce", () => provider.mintLogoutToken(claims({ nonce: "n" })), '"nonce"'],
      ["an expired exp", () => provider.mintLogoutToken(claims({ iat: now() - 200, exp: now() - 100 })), '"exp"'],
      ["an iat in the future", () => provider.mintLogoutToken(claims({ iat: now() + 600, exp: now() + 700 })), '"iat"'],
      [
        "an iat too old, even with a far exp",
        () => provider.mintLogoutToken(claims({ iat: now() - 3600, exp: now() + 3600 })),
        '"iat"',
      ],
      ["no iat", () => provider.mintLogoutToken(claims({ iat: undefined })), '"iat"'],
      ["neither sub nor sid", () => provider.mintLogoutToken(provider.logoutClaims()), '"sub" nor "sid"'],
      ["a sub that is not a string", () => provider.mintLogoutToken(claims({ sub: 42 })), '"sub"'],
      ["no jti", () => provider.mintLogoutToken(claims({ jti: undefined })), '"jti"'],
      ["garbage", () => "not.a.token", "Invalid logout token"],
      ["nothing", () => "", "Invalid logout token"],
    ]

    it.each(invalid)("refuses a token with %s as `rejected`", async (_name, token, because) => {
      const error = await Effect.runPromise(Effect.flip(verify(token())))
      expect(error.reason).toBe("rejected")
      expect(error.message).toContain(because)
    })
  })
})
