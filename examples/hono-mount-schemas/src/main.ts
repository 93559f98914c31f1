/**
 * An existing Hono application (a shop with its own routes and its own 404) that serves Coffer's Schemas
 * service under `/config`, on the core and the in-memory adapters, in the same process. `main` serves it on a
 * free port with @hono/node-server and walks through it over real HTTP: sign in, create platforms, save a schema
 * that extends another, read it with an API token, and show that the prefix keeps every rule of the service.
 *
 * The Schemas app is mounted with `hono/mount`, which strips `/config` before the app sees the request, not
 * with `app.route`: its rules look at the path (`/api/_ui/v1/*` refuses API tokens) and its 404 is its own
 * (README, "Why mount and not route").
 *
 * Run it: `pnpm --filter @coffer/example-hono-mount-schemas start` (after `pnpm build`), or through its test.
 */
import type { AddressInfo } from "node:net"
import { pathToFileURL } from "node:url"
import { MemoryCache, MemorySchemaStore, MemorySessions } from "@coffer/adapter-memory"
import { createSchemasApp, type SchemasSettings } from "@coffer/http"
import { Clock, Hasher, Random, Readiness } from "@coffer/kernel"
import { SchemaCache, Tokens } from "@coffer/schemas"
import { serve } from "@hono/node-server"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as References from "effect/References"
import { Hono } from "hono"
import { mount } from "hono/mount"

/** What the Schemas routes ask of the runtime, all in process memory: nothing survives a restart. */
const schemasLayer = Layer.mergeAll(
  MemorySchemaStore.layer,
  MemorySessions.layer,
  Tokens.RevokedTokens.layer,
  SchemaCache.generationListener,
  // Memory is ready as long as the process runs: `/readyz` answers ok.
  Readiness.layerAlwaysReady,
).pipe(
  Layer.provideMerge(Layer.mergeAll(MemoryCache.layer, Clock.layer, Random.layer, Hasher.layer)),
  // The app logs one line per request at Info through the runtime's logger. This walk-through prints its own lines
  // instead, so only warnings and errors (a 5xx with its cause) are logged; an embedder picks its own level.
  Layer.provideMerge(Layer.succeed(References.MinimumLogLevel)("Warn")),
)

export type SchemasRuntime = ManagedRuntime.ManagedRuntime<Layer.Success<typeof schemasLayer>, never>

/** The runtime the Schemas routes run their use cases on; built before serving, disposed at shutdown. */
export const makeSchemasRuntime = (): SchemasRuntime => ManagedRuntime.make(schemasLayer)

/**
 * What the Schemas app reads of its configuration, here in development: `POST /config/api/auth/dev-login` is on,
 * which the walk-through signs in with (production uses OIDC). An embedder fills these from its own configuration;
 * `coffer serve` fills them from the environment variables of the repository README.
 */
export const developmentSettings: SchemasSettings = {
  environment: "development",
  rateLimit: 0,
  corsOrigins: [],
  publicOrigin: undefined,
  oidc: undefined,
  roles: { claim: "groups", editorGroup: undefined, adminGroup: undefined, platformEditors: new Map() },
}

/** The application. */
export const createApp = (runtime: SchemasRuntime, settings: SchemasSettings = developmentSettings): Hono => {
  const schemas = createSchemasApp({ runtime, settings, version: "embedded" })

  const app = new Hono()
  app.get("/health", (c) => c.json({ status: "ok" }))
  app.get("/products", (c) => c.json([{ sku: "mug", price: 12 }]))
  app.all("/config/*", mount(schemas.fetch))
  return app
}

interface Step {
  readonly method: string
  readonly path: string
  readonly body?: unknown
  readonly headers?: Record<string, string>
  /** What to print of the response body; the body as received by default. */
  readonly show?: (text: string) => string
}

/** Serves the application, walks through it, prints one line per request, and shuts everything down. */
export const main = async (print: (line: string) => void = console.log): Promise<void> => {
  const runtime = makeSchemasRuntime()
  // Build the layers now, so that a layer that cannot be built stops the start instead of failing requests.
  await runtime.context()
  const app = createApp(runtime)
  const server = await new Promise<ReturnType<typeof serve>>((ready) => {
    const started = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => ready(started))
  })
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const call = async (step: Step) => {
    const json = step.body !== undefined
    const response = await fetch(`${origin}${step.path}`, {
      method: step.method,
      headers: { ...(json ? { "content-type": "application/json" } : {}), ...step.headers },
      ...(json ? { body: JSON.stringify(step.body) } : {}),
    })
    const text = await response.text()
    print(`${step.method} ${step.path} -> ${response.status} ${(step.show ?? ((body) => body))(text)}`)
    return { response, text }
  }
  try {
    await call({ method: "GET", path: "/health" })
    const login = await call({
      method: "POST",
      path: "/config/api/auth/dev-login",
      body: { email: "ops@example.com" },
      show: (text) => `signed in as ${(JSON.parse(text) as { user: { email: string } }).user.email}`,
    })
    const session = { cookie: login.response.headers.getSetCookie()[0]!.split(";")[0]! }
    await call({
      method: "POST",
      path: "/config/api/base",
      body: { name: "base", versions: ["1.0.0"] },
      headers: session,
    })
    await call({
      method: "POST",
      path: "/config/api/ios",
      body: { name: "ios", versions: ["2.0.0"] },
      headers: session,
    })
    const saved = (text: string) => `schema ${JSON.stringify((JSON.parse(text) as { schema: unknown }).schema)}`
    await call({
      method: "PUT",
      path: "/config/api/base/1.0.0",
      body: { content: { theme: { color: "red", size: 12 } } },
      headers: session,
      show: saved,
    })
    await call({
      method: "PUT",
      path: "/config/api/ios/2.0.0",
      body: { content: { "@extends": "base", theme: { color: "blue" } } },
      headers: session,
      show: saved,
    })
    const created = await call({
      method: "POST",
      path: "/config/api/_ui/v1/tokens",
      body: { name: "mobile app" },
      headers: session,
      // The token is shown once, to its creator; the walk-through keeps it and prints only its prefix.
      show: (text) => `a token starting with ${(JSON.parse(text) as { token: string }).token.slice(0, 4)}`,
    })
    const bearer = { authorization: `Bearer ${(JSON.parse(created.text) as { token: string }).token}` }
    await call({ method: "GET", path: "/config/api/ios/2.0.0", headers: bearer })
    await call({ method: "GET", path: "/config/api/_ui/v1/tokens", headers: bearer })
    await call({ method: "GET", path: "/config/nothing/here" })
    await call({ method: "GET", path: "/nothing/here" })
  } finally {
    await new Promise<void>((closed) => server.close(() => closed()))
    await runtime.dispose()
  }
}

// Run when started as a program (`node dist/main.js`), not when a test imports `main`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
