/**
 * The whole secrets app on the real in-memory adapters and the real cipher, a readiness check the test can flip, a
 * clock it can move, and a small client that signs people in (development login) and calls the API with a cookie
 * or an API key.
 */

import { XChaCha20Poly1305 } from "@coffer/adapter-crypto"
import { MemoryAccounts, MemoryCache, MemorySessions } from "@coffer/adapter-memory"
import { createSecretsApp } from "@coffer/http"
import { Clock, Hasher, MasterKeyCheck, Random, type Readiness } from "@coffer/kernel"
import type { Settings } from "@coffer/node"
import { ApiKeyChecks, MemorySecretStore } from "@coffer/secrets"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import type { Context } from "hono"
import { CLIENT_HEADER, settingsFrom, TEST_REQUEST_ID } from "./http.js"
import { conformance } from "./openapi.js"
import { captureLogs, flippableReadiness } from "./runtime.js"

export { CLIENT_HEADER }

/** The client named in the test's header, else one fixed address. */
const clientAddress = (c: Context) => c.req.header(CLIENT_HEADER) ?? "192.0.2.10"

export const START = Date.UTC(2026, 0, 31, 12, 0, 0)

export interface Call {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions that read them.
  readonly body: any
  readonly text: string
  readonly headers: Headers
}

/** Who makes a request: a signed-in person (their cookie), an API key, or nobody. */
export type As = { readonly cookie: string } | { readonly key: string } | undefined

/**
 * Every service the secrets app needs, in memory, with a readiness check the test flips (or the one given), a
 * clock it moves, and a logger that records what the app logs.
 */
export const makeRuntime = (options: { readonly readiness?: Layer.Layer<Readiness.Readiness> } = {}) => {
  const clock = Clock.makeManual(START)
  const flippable = flippableReadiness()
  const readiness = options.readiness ?? flippable.layer
  const { logs, layer: logger } = captureLogs()
  const platform = Layer.mergeAll(Layer.succeed(Clock.Clock, clock.clock), Random.layer, Hasher.layer)
  const cipher = XChaCha20Poly1305.layer({ masterKey: Redacted.make(new Uint8Array(32).fill(9)) })
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      MemorySecretStore.layer.pipe(Layer.provideMerge(MemoryAccounts.layer)),
      MemorySessions.layer,
      cipher,
      MasterKeyCheck.layerMemory,
      readiness,
      logger,
      // As the host wires it: the instance's memory of API-key checks.
      ApiKeyChecks.KeyChecks.layer,
    ).pipe(Layer.provideMerge(Layer.merge(MemoryCache.layer, platform))),
  )
  return {
    runtime,
    clock,
    logs,
    setReady: flippable.setReady,
  }
}

export const makeService = (env: Settings.Env = {}) => {
  const { runtime, clock, logs, setReady } = makeRuntime()
  const settings = settingsFrom({ COFFER_PUBLIC_ORIGIN: "https://coffer.example", ...env })
  const app = createSecretsApp({ runtime, settings, version: "9.9.9", clientAddress })
  // Every answer a test gets is held to the app's own OpenAPI document.
  const documented = conformance(app)

  const call = async (
    method: string,
    path: string,
    options: { as?: As; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Call> => {
    // One request id for every call, so that two answers compare equal when only their ids would differ.
    const headers: Record<string, string> = { "x-request-id": TEST_REQUEST_ID, ...options.headers }
    if (options.as !== undefined && "cookie" in options.as) headers.cookie = options.as.cookie
    if (options.as !== undefined && "key" in options.as) headers.authorization = `Bearer ${options.as.key}`
    let body: string | undefined
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
    const response = await app.request(`https://coffer.example${path}`, { method, headers, body })
    const text = await response.text()
    await documented.check(method, path, { status: response.status, headers: response.headers, text }, body)
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, body: parsed, text, headers: response.headers }
  }

  /** Signs `email` in with the development login; answers the cookie to send and the user's id. */
  const signIn = async (email: string) => {
    const response = await app.request("https://coffer.example/api/auth/dev-login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email }),
    })
    if (response.status !== 200) throw new Error(`dev-login failed: ${response.status} ${await response.text()}`)
    const { user } = (await response.json()) as { user: { id: string } }
    const cookie = response.headers.getSetCookie()[0]!.split(";")[0]!
    return { cookie, userId: user.id, as: { cookie } as const }
  }

  return { app, runtime, clock, logs, call, signIn, setReady, documented }
}

export type Service = ReturnType<typeof makeService>

/**
 * A project `alpha` with an owner, a write member, a read member and a bystander (read), a secret `EXISTING`
 * with two versions in `development`, a pending invite, and keys: a write key of the write member, a read key of
 * the read member, and a write key whose holder was moved down to `read`. Plus an outsider who owns `beta` and
 * holds a write key for it.
 */
export const populate = async (service: Service) => {
  const { call, signIn } = service
  const owner = await signIn("owner@example.com")
  const writer = await signIn("writer@example.com")
  const reader = await signIn("reader@example.com")
  const demoted = await signIn("demoted@example.com")
  const bystander = await signIn("bystander@example.com")
  const outsider = await signIn("outsider@example.com")
  const expect201 = (result: Call) => {
    if (result.status !== 201 && result.status !== 200) throw new Error(`setup failed: ${result.status} ${result.text}`)
    return result.body
  }
  expect201(await call("POST", "/api/projects", { as: owner.as, body: { name: "Alpha" } }))
  expect201(await call("POST", "/api/projects", { as: outsider.as, body: { name: "Beta" } }))
  const join = async (person: { as: As }, role: "read" | "write") => {
    const { token } = expect201(await call("POST", "/api/projects/alpha/invites", { as: owner.as, body: { role } }))
    expect201(await call("POST", "/api/invites/accept", { as: person.as, body: { token } }))
  }
  await join(writer, "write")
  await join(reader, "read")
  await join(demoted, "write")
  await join(bystander, "read")
  const secrets = "/api/projects/alpha/environments/development/secrets"
  expect201(await call("POST", secrets, { as: owner.as, body: { key: "EXISTING", value: "one" } }))
  expect201(await call("POST", secrets, { as: owner.as, body: { key: "EXISTING", value: "two" } }))
  const invite = expect201(await call("POST", "/api/projects/alpha/invites", { as: owner.as, body: {} }))
  const key = async (person: { as: As }, project: string, scope: "read" | "write") =>
    ({
      key: expect201(
        await call("POST", "/api/api-keys", {
          as: person.as,
          body: { name: `${scope} key`, projectSlug: project, scope },
        }),
      ).key,
    }) as const
  const writeKey = await key(writer, "alpha", "write")
  const readKey = await key(reader, "alpha", "read")
  const demotedKey = await key(demoted, "alpha", "write")
  expect201(
    await call("PATCH", `/api/projects/alpha/members/${demoted.userId}`, { as: owner.as, body: { role: "read" } }),
  )
  const foreignKey = await key(outsider, "beta", "write")
  return {
    owner,
    writer,
    reader,
    demoted,
    bystander,
    outsider,
    writeKey,
    readKey,
    demotedKey,
    foreignKey,
    inviteId: invite.invite.id as string,
    secrets,
  }
}
