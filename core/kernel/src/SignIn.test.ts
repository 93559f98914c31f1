/**
 * The sign-in use cases without any HTTP framework: the real in-memory Sessions and Cache (imported from their
 * sources: the kernel depends on no adapter), and an Identity that plays the provider's part by the port's
 * contract (the real provider is exercised by core/http's oidc.test.ts and the end-to-end tests).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { describe, expect, it } from "vitest"
import * as MemoryCache from "../../../adapters/memory/src/MemoryCache.js"
import * as MemorySessions from "../../../adapters/memory/src/MemorySessions.js"
import type * as Cache from "./Cache.js"
import * as Clock from "./Clock.js"
import * as Hasher from "./Hasher.js"
import * as Identity from "./Identity.js"
import * as Random from "./Random.js"
import * as Sessions from "./Sessions.js"
import * as SignIn from "./SignIn.js"
import { StoreUnavailable } from "./StoreUnavailable.js"

const ISSUER = "https://idp.example"

/** A provider that signs in `ada` with the nonce it issued, and accepts logout tokens `logout:<jti>:<sid>`. */
const provider = Layer.effect(
  Identity.Identity,
  Effect.gen(function* () {
    const issued = yield* Ref.make(0)
    return {
      name: "Test",
      issuer: ISSUER,
      start: ({ returnTo }) =>
        Effect.map(
          Ref.updateAndGet(issued, (n) => n + 1),
          (n) => ({
            url: `${ISSUER}/authorize?state=state-${n}`,
            pending: { state: `state-${n}`, nonce: `nonce-${n}`, codeVerifier: `verifier-${n}`, returnTo },
          }),
        ),
      finish: ({ pending }) =>
        Effect.succeed({
          issuer: ISSUER,
          subject: "ada",
          email: "ada@example.com",
          claims: { sid: "sid-1", nonce: pending.nonce },
        }),
      verifyLogoutToken: (token) => {
        const [kind, tokenId, sessionId] = token.split(":")
        return kind === "logout" && tokenId !== undefined
          ? Effect.succeed({ issuer: ISSUER, subject: undefined, sessionId, tokenId })
          : Effect.fail(new Identity.IdentityError({ reason: "rejected", message: "Not a logout token" }))
      },
    } satisfies Identity.Identity["Service"]
  }),
)

const base = Layer.mergeAll(MemorySessions.layer, MemoryCache.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(Clock.layer, Random.layer, Hasher.layer)),
)
const run = <A, E>(
  effect: Effect.Effect<A, E, Sessions.Sessions | Cache.Cache | Hasher.Hasher>,
  options: { readonly oidc?: boolean } = {},
) => Effect.runPromise(Effect.provide(effect, options.oidc === false ? base : Layer.merge(base, provider)))

const toSession = (signedIn: Identity.SignedIn) =>
  Effect.succeed({ userId: `user-${signedIn.subject}`, email: signedIn.email ?? "", groups: [] })

const finishInput = (state: string, previousSession?: string): SignIn.FinishInput => ({
  state,
  boundState: state,
  redirectUri: "https://coffer.example/cb",
  callbackUrl: `https://coffer.example/cb?state=${state}`,
  previousSession,
})

const sessionOf = (token: string) => Sessions.Sessions.use((sessions) => sessions.get(token))

describe("SignIn", () => {
  it("start keeps the pending sign-in; finish creates a session with the provider's ids and answers returnTo", async () => {
    const { session, returnTo } = await run(
      Effect.gen(function* () {
        const { url, state } = yield* SignIn.start({ redirectUri: "https://coffer.example/cb", returnTo: "/p" })
        expect(url).toContain(state)
        const { token, returnTo } = yield* SignIn.finish(finishInput(state), toSession)
        return { session: yield* sessionOf(token), returnTo }
      }),
    )
    expect(returnTo).toBe("/p")
    expect(session).toMatchObject({ userId: "user-ada", issuer: ISSUER, subject: "ada", providerSessionId: "sid-1" })
  })

  it("takes a pending sign-in once, and refuses a state the browser does not hold", async () => {
    const failures = await run(
      Effect.gen(function* () {
        const { state } = yield* SignIn.start({ redirectUri: "https://coffer.example/cb", returnTo: "/" })
        const otherBrowser = yield* Effect.flip(SignIn.finish({ ...finishInput(state), boundState: "x" }, toSession))
        yield* SignIn.finish(finishInput(state), toSession)
        const again = yield* Effect.flip(SignIn.finish(finishInput(state), toSession))
        const unknown = yield* Effect.flip(SignIn.finish(finishInput("never-issued"), toSession))
        const missing = yield* Effect.flip(SignIn.finish({ ...finishInput(""), boundState: "" }, toSession))
        return [otherBrowser, again, unknown, missing]
      }),
    )
    expect(failures.map((error) => (error._tag === "IdentityError" ? error.reason : error._tag))).toEqual([
      "rejected",
      "expired",
      "expired",
      "rejected",
    ])
  })

  it("ends the browser's previous session at every sign-in, development login included", async () => {
    const { previous, rotated, after } = await run(
      Effect.gen(function* () {
        const previous = yield* SignIn.startSession(undefined, { userId: "u", email: "u@example.com", groups: [] })
        const rotated = yield* SignIn.startSession(previous, { userId: "u", email: "u@example.com", groups: [] })
        const { state } = yield* SignIn.start({ redirectUri: "https://coffer.example/cb", returnTo: "/" })
        const { token } = yield* SignIn.finish(finishInput(state, rotated), toSession)
        return {
          previous: yield* sessionOf(previous),
          rotated: yield* sessionOf(rotated),
          after: yield* sessionOf(token),
        }
      }),
    )
    expect(previous).toBeUndefined()
    expect(rotated).toBeUndefined()
    expect(after?.userId).toBe("user-ada")
  })

  it("passes the service's refusal through and creates no session", async () => {
    const refused = () => Effect.fail(new Identity.IdentityError({ reason: "refused", message: "No" }))
    const error = await run(
      Effect.gen(function* () {
        const { state } = yield* SignIn.start({ redirectUri: "https://coffer.example/cb", returnTo: "/" })
        return yield* Effect.flip(SignIn.finish(finishInput(state), refused))
      }),
    )
    expect(error).toMatchObject({ _tag: "IdentityError", reason: "refused" })
  })

  it("is off (404) without an identity provider", async () => {
    const errors = await run(
      Effect.all([
        Effect.flip(SignIn.start({ redirectUri: "https://coffer.example/cb", returnTo: "/" })),
        Effect.flip(SignIn.finish(finishInput("s"), toSession)),
        Effect.flip(SignIn.backChannelLogout({ logoutToken: "logout:j:s", audience: "https://coffer.example" })),
      ]),
      { oidc: false },
    )
    expect(errors.map((error) => error._tag)).toEqual(["SignInOff", "SignInOff", "SignInOff"])
    expect(errors[0]?.message).toBe("Sign-in with OpenID Connect is not configured")
  })

  it("back-channel logout ends the provider session's sessions and refuses a replay", async () => {
    const outcome = await run(
      Effect.gen(function* () {
        const { state } = yield* SignIn.start({ redirectUri: "https://coffer.example/cb", returnTo: "/" })
        const { token } = yield* SignIn.finish(finishInput(state), toSession)
        const logout = { logoutToken: "logout:jti-1:sid-1", audience: "https://coffer.example" }
        yield* SignIn.backChannelLogout(logout)
        const ended = (yield* sessionOf(token)) === undefined
        const replay = yield* Effect.flip(SignIn.backChannelLogout(logout))
        // Another service sharing the cache accepts the same token once for itself.
        yield* SignIn.backChannelLogout({ ...logout, audience: "https://schemas.example" })
        const invalid = yield* Effect.flip(SignIn.backChannelLogout({ ...logout, logoutToken: "forged" }))
        return { ended, replay, invalid }
      }),
    )
    expect(outcome.ended).toBe(true)
    expect(outcome.replay).toMatchObject({ _tag: "BadRequest", message: "This logout token has already been used" })
    expect(outcome.invalid).toMatchObject({ _tag: "IdentityError", reason: "rejected" })
  })

  it("forgets a logout token when ending the sessions failed, so the provider's retry is not a replay", async () => {
    let down = true
    const flaky = Layer.effect(
      Sessions.Sessions,
      Effect.gen(function* () {
        const sessions = yield* Sessions.Sessions
        return {
          ...sessions,
          revokeWhere: (filter: Sessions.SessionFilter) =>
            down
              ? Effect.fail(new StoreUnavailable({ store: "database", message: "down" }))
              : sessions.revokeWhere(filter),
        }
      }),
    ).pipe(Layer.provide(MemorySessions.layer))
    const world = Layer.mergeAll(flaky, MemoryCache.layer, provider).pipe(
      Layer.provideMerge(Layer.mergeAll(Clock.layer, Random.layer, Hasher.layer)),
    )
    const logout = { logoutToken: "logout:jti-2:sid-1", audience: "https://coffer.example" }
    const [first, retry] = await Effect.runPromise(
      Effect.gen(function* () {
        const first = yield* Effect.flip(SignIn.backChannelLogout(logout))
        down = false
        const retry = yield* Effect.result(SignIn.backChannelLogout(logout))
        return [first, retry] as const
      }).pipe(Effect.provide(world)),
    )
    expect(first._tag).toBe("StoreUnavailable")
    expect(retry._tag).toBe("Success")
  })

  it("takes the provider's e-mail only when it has one without control characters or unpaired surrogates", async () => {
    const signedIn = (email: string | undefined) =>
      ({ issuer: ISSUER, subject: "ada", email, claims: {} }) as unknown as Identity.SignedIn
    expect(await Effect.runPromise(SignIn.emailOf(signedIn("ada@example.com")))).toBe("ada@example.com")
    expect(await Effect.runPromise(SignIn.emailOf(signedIn("ada\u{1f600}@example.com")))).toBe(
      "ada\u{1f600}@example.com",
    )
    for (const email of [undefined, "", "ada\u0000@example.com", "ada@example.com\n", "ada\ud800@example.com"]) {
      const refused = await Effect.runPromise(Effect.flip(SignIn.emailOf(signedIn(email))))
      expect([email, refused.reason]).toEqual([email, "email"])
    }
  })
})
