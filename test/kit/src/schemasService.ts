/**
 * The whole schemas app over HTTP (`app.request`) on the real in-memory adapters, as a host without a database or
 * Redis runs it, with a cache that can be taken down, a development login per person, and a small client that
 * speaks JSON.
 */
import { MemorySchemaStore, MemorySessions } from "@coffer/adapter-memory"
import { createSchemasApp } from "@coffer/http"
import type { Settings } from "@coffer/node"
import { SchemaCache, Tokens } from "@coffer/schemas"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { afterEach, expect } from "vitest"
import { switchableCache } from "./cache.js"
import { platform, schemasSettingsFrom, TEST_REQUEST_ID } from "./http.js"
import { conformance } from "./openapi.js"
import { flippableReadiness } from "./runtime.js"

export interface Client {
  readonly request: (
    method: string,
    path: string,
    options?: { readonly body?: unknown; readonly headers?: Record<string, string> },
  ) => Promise<{ readonly status: number; readonly body: unknown; readonly headers: Headers }>
}

/** A schemas app on fresh memory adapters. `env` adds settings (roles, CORS…) to development defaults. */
export const schemasService = (env: Settings.Env = {}) => {
  const cacheState = { down: false }
  const readiness = flippableReadiness()
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      MemorySchemaStore.layer,
      MemorySessions.layer,
      Tokens.RevokedTokens.layer,
      SchemaCache.generationListener,
      readiness.layer,
    ).pipe(Layer.provideMerge(Layer.merge(switchableCache(cacheState), platform))),
  )
  const settings = schemasSettingsFrom(env)
  let roles = settings.roles
  const app = createSchemasApp({ runtime, settings, version: "9.9.9", roles: () => roles })
  // Every answer a test gets is held to the app's own OpenAPI document.
  const documented = conformance(app)

  const raw = async (
    method: string,
    path: string,
    options: { readonly body?: unknown; readonly headers?: Record<string, string> } = {},
  ) => {
    const hasBody = options.body !== undefined
    const sent = hasBody ? (typeof options.body === "string" ? options.body : JSON.stringify(options.body)) : undefined
    const response = await app.request(`http://coffer.test${path}`, {
      method,
      // One request id for every call, so that two answers compare equal when only their ids would differ.
      headers: {
        "x-request-id": TEST_REQUEST_ID,
        ...(hasBody ? { "content-type": "application/json" } : {}),
        ...options.headers,
      },
      ...(sent === undefined ? {} : { body: sent }),
    })
    const text = await response.text()
    await documented.check(method, path, { status: response.status, headers: response.headers, text }, sent)
    return {
      status: response.status,
      body:
        text === "" || !/json/.test(response.headers.get("content-type") ?? "")
          ? undefined
          : (JSON.parse(text) as unknown),
      headers: response.headers,
    }
  }

  const client = (headers: Record<string, string>): Client => ({
    request: (method, path, options = {}) =>
      raw(method, path, { ...options, headers: { ...headers, ...options.headers } }),
  })

  /** A person signed in through the development login, with these groups. */
  const person = async (email: string, groups: ReadonlyArray<string> = []): Promise<Client> => {
    const response = await app.request("http://coffer.test/api/auth/dev-login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, groups }),
    })
    expect(response.status).toBe(200)
    const cookie = response.headers.getSetCookie()[0]!.split(";")[0]!
    return client({ cookie })
  }

  /** A client holding an API token made by `admin`. */
  const withToken = async (admin: Client, platforms?: ReadonlyArray<string>) => {
    const created = await admin.request("POST", "/api/_ui/v1/tokens", {
      body: platforms === undefined ? { name: "ci" } : { name: "ci", platforms },
    })
    expect(created.status).toBe(201)
    const { token, record } = created.body as { token: string; record: { id: string } }
    return { token, id: record.id, client: client({ authorization: `Bearer ${token}` }) }
  }

  return {
    app,
    runtime,
    documented,
    cache: cacheState,
    /** Makes `/readyz` answer as an unreachable database does, until set back. */
    setReady: readiness.setReady,
    anonymous: client({}),
    client,
    person,
    withToken,
    setRoles: (next: Settings.Roles) => {
      roles = next
    },
  }
}

/** Platforms with versions, created through `POST /api/{platform}`. */
export const createPlatforms = async (client: Client, spec: Readonly<Record<string, ReadonlyArray<string>>>) => {
  for (const [name, versions] of Object.entries(spec)) {
    const response = await client.request("POST", `/api/${name}`, { body: { name, versions } })
    expect(response).toMatchObject({ status: 201, body: { ok: true } })
  }
}

/** A schema saved through `PUT /api/{platform}/{version}`; returns the body. */
export const saveSchema = async (client: Client, key: string, content: unknown) => {
  const response = await client.request("PUT", `/api/${key}`, { body: { content } })
  expect(response.status).toBe(200)
  return response.body as { ok: true; schema: { output: unknown }; reprocessed: ReadonlyArray<string> }
}

/**
 * A `service(env)` for a test file: each call makes a fresh service, and every one made is disposed after
 * each test, so no test sees another's state.
 */
export const useSchemasServices = () => {
  const services: Array<ReturnType<typeof schemasService>> = []
  afterEach(async () => {
    await Promise.all(services.splice(0).map((created) => created.runtime.dispose()))
  })
  return (env: Record<string, string> = {}) => {
    const created = schemasService(env)
    services.push(created)
    return created
  }
}
