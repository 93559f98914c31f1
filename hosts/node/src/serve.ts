/**
 * `coffer serve`: migrate, build one runtime from the chosen layers, and start each service on its own port
 * (both own `/api/*`, so they cannot share one). Shutdown closes the listeners (requests in flight finish),
 * then disposes the runtime, which closes pools and connections.
 */
import { migrate } from "@coffer/adapter-sql"
import { createSchemasApp, createSecretsApp, type WebApp } from "@coffer/http"
import { MasterKeyCheck } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Result from "effect/Result"
import type { Hono } from "hono"
import { noteCacheMode } from "./cacheMode.js"
import { schemasAppSettings, secretsAppSettings } from "./config/appSettings.js"
import type { HostSettings } from "./config/hostSettings.js"
import { isLoopback } from "./config/insecureOrigins.js"
import * as Settings from "./config/Settings.js"
import { type Infrastructure, infrastructureLayer } from "./layers.js"
import { type Listener, type Listening, nodeListener } from "./listen.js"
import { schemasLayer } from "./services/schemas.js"
import { secretsLayer } from "./services/secrets.js"
import { sayAfterLogs } from "./telemetry/logging.js"
import { loggingLayer, serviceTelemetryLayer } from "./telemetry/telemetry.js"
import { version } from "./version.js"
import { loadWebApp } from "./webApp.js"

export type Service = "schemas" | "secrets"
export const SERVICES: ReadonlyArray<Service> = ["schemas", "secrets"]

export interface Running {
  readonly listening: Readonly<Partial<Record<Service, Listening>>>
  /** Writes a plain line of the host's where the "listening" lines go, after every line logged before it. */
  readonly say: (line: string) => Promise<void>
  /** Stops accepting, lets requests in flight finish (up to `graceMs`), then releases every resource. */
  readonly close: (graceMs?: number) => Promise<void>
}

export interface ServeOptions {
  readonly settings: HostSettings
  readonly services?: ReadonlyArray<Service>
  /** Where roles settings are re-read on every request; `process.env` by default. */
  readonly env?: Settings.Env
  /** Where the "listening on" lines go. */
  readonly log?: (line: string) => void
  /** The HTTP server the apps run on; Node's by default (`@coffer/bun` passes `Bun.serve`). */
  readonly listener?: Listener
}

const localOrigin = (port: number) => `http://localhost:${port}`

/** Each service's public origin: its setting, and what is built from it (undefined: nothing in these settings). */
const PUBLIC_ORIGINS: Record<
  Service,
  {
    readonly setting: string
    readonly of: (settings: Settings.Settings) => string | undefined
    readonly uses: (settings: Settings.Settings) => string | undefined
  }
> = {
  schemas: {
    setting: "COFFER_SCHEMAS_PUBLIC_ORIGIN",
    of: (settings) => settings.schemasPublicOrigin,
    uses: (settings) => (settings.oidc === undefined ? undefined : "sign-in redirects"),
  },
  secrets: {
    setting: "COFFER_PUBLIC_ORIGIN",
    of: (settings) => settings.publicOrigin,
    uses: (settings) =>
      `invite links${settings.oidc === undefined ? "" : ", sign-in redirects"} and the CLI's web login page`,
  },
}

/**
 * The roles settings, re-read from the environment on every call (seed 000 §5 rule 1). A value made invalid
 * after start keeps the last good one: the start already proved a valid form, and failing open is not an option.
 */
const liveRoles = (env: Settings.Env, initial: Settings.Roles) => {
  let last = initial
  return () => {
    const parsed = Settings.parseRoles(env)
    if (Result.isSuccess(parsed)) last = parsed.success
    return last
  }
}

/** Why a service could not listen, naming the setting to change, as a bad setting is named. */
const bindFailure = (error: unknown, service: Service, host: string, port: number): Error => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  const portSetting = service === "schemas" ? "COFFER_SCHEMAS_PORT" : "COFFER_SECRETS_PORT"
  const reason = error instanceof Error ? error.message : String(error)
  switch (code) {
    case "EADDRINUSE":
      return new Error(`${portSetting}: port ${port} on ${host} is in use (by another process, or the other service)`)
    case "EACCES":
      return new Error(`${portSetting}: not allowed to listen on port ${port} (${reason})`)
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EADDRNOTAVAIL":
    // Bun's answer to a name it cannot resolve (the ports were checked with the settings).
    case "EINVAL":
      return new Error(`COFFER_HOST: cannot listen on ${host}, which is no address of this machine (${reason})`)
    default:
      return error instanceof Error ? error : new Error(reason)
  }
}

export const serve = async (options: ServeOptions): Promise<Running> => {
  const { settings } = options
  const services = options.services ?? SERVICES
  const log = options.log ?? console.log
  const listener = options.listener ?? nodeListener
  const { clientAddress } = listener
  // One memo map: the infrastructure is built once and shared by both services' runtimes.
  const memoMap = Layer.makeMemoMapUnsafe()
  // The process's loggers reach the infrastructure's own fibers too (a Redis subscription that drops, say).
  const infrastructure = infrastructureLayer(settings).pipe(
    Layer.provideMerge(loggingLayer(settings.logFormat, settings.logLevel)),
  )
  const base = ManagedRuntime.make(infrastructure, { memoMap })
  // Each service on the shared infrastructure, with its own metrics, log label and tracer (`telemetry/`).
  const serviceRuntime = <A, E>(service: Service, layer: Layer.Layer<A, E, Infrastructure>) =>
    ManagedRuntime.make(
      Layer.provideMerge(layer, Layer.merge(infrastructure, serviceTelemetryLayer(settings, service))),
      { memoMap },
    )
  const runtimes = {
    schemas: serviceRuntime("schemas", schemasLayer(settings)),
    secrets: serviceRuntime("secrets", secretsLayer(settings)),
  }
  const dispose = async () => {
    await Promise.all([runtimes.schemas.dispose(), runtimes.secrets.dispose()])
    await base.dispose()
  }
  const roles = liveRoles(options.env ?? process.env, settings.roles)
  const listening: Partial<Record<Service, Listening>> = {}
  // COFFER_WEB (on by default): each service serves its own app when it has been built.
  const webApps = Object.fromEntries(
    services.map((service) => [service, settings.web === false ? undefined : loadWebApp(service)]),
  ) as Partial<Record<Service, WebApp>>
  try {
    // A master key that does not open the stored data stops the start (MasterKeyCheck), naming the setting.
    // What an upgrade changed in the database is said where the operator looks (the log), as `coffer migrate` says it.
    const applied = await base.runPromise(Effect.tap(migrate, () => MasterKeyCheck.atStart))
    if (applied.length > 0) await base.runPromise(Effect.logInfo(`migrations applied: ${applied.join(", ")}`))
    await base.runPromise(noteCacheMode(settings))
    // Development is meant for one machine; on an address others reach, its sign-in is anyone's, as anyone. A
    // container's development instance has to bind such an address, so it is said, not refused.
    if (settings.environment === "development" && !isLoopback(settings.host)) {
      await base.runPromise(
        Effect.logWarning(
          `development mode on COFFER_HOST=${settings.host}, which other machines can reach: its sign-in lets ` +
            "anyone who reaches it act as anyone, in any group; bind 127.0.0.1, or run with COFFER_ENV=production",
        ),
      )
    }
    const ports: Record<Service, number> = { schemas: settings.schemasPort, secrets: settings.secretsPort }
    // Left unset, a public origin names localhost, right only where nobody else connects: elsewhere what is built
    // from it reaches nobody. A service whose clients need none of it (Schemas read with tokens) needs none, so
    // it is said, not refused.
    if (settings.environment === "production" && !isLoopback(settings.host)) {
      for (const service of services) {
        const origin = PUBLIC_ORIGINS[service]
        const uses = origin.uses(settings)
        if (origin.of(settings) !== undefined || uses === undefined) continue
        await base.runPromise(
          Effect.logWarning(
            `${origin.setting} is unset on COFFER_HOST=${settings.host}, which other machines can reach: ${uses} ` +
              "would point at localhost, which is only this machine; set it to the address people use",
          ),
        )
      }
    }
    // Built before listening, so that a layer that cannot be built stops the start instead of failing requests.
    await Promise.all(services.map((service) => runtimes[service].context()))
    // Said once every service listens: a supervisor that waits for the lines must not see one of a start that fails.
    const said: Array<string> = []
    for (const service of services) {
      // The public origin defaults to the bound port, known only once listening (port 0 picks one).
      let app: Hono | undefined
      // The server's own bindings travel as `env`: the listener's `clientAddress` reads the peer from them.
      const bound = await listener
        .listen((request, env) => app!.fetch(request, env), settings.host, ports[service], {
          requestTimeoutMs: settings.requestTimeoutSeconds * 1000,
        })
        .catch((error: unknown) => Promise.reject(bindFailure(error, service, settings.host, ports[service])))
      listening[service] = bound
      const web = webApps[service]
      // The public origin defaults to the bound port.
      const origin = localOrigin(bound.port)
      app =
        service === "schemas"
          ? createSchemasApp({
              runtime: runtimes.schemas,
              settings: schemasAppSettings(settings, settings.schemasPublicOrigin ?? origin),
              version,
              roles,
              clientAddress,
              web,
            })
          : createSecretsApp({
              runtime: runtimes.secrets,
              settings: secretsAppSettings(settings, settings.publicOrigin ?? origin),
              version,
              clientAddress,
              web,
            })
      if (settings.web !== false && web === undefined)
        said.push(`coffer ${service}: no web app built, serving the API only`)
      said.push(`coffer ${service} listening on ${bound.url}`)
    }
    // After what was logged before: the migrations were applied, and the warnings found, before any service listened.
    await base.runPromise(Effect.forEach(said, (line) => sayAfterLogs(log, line)))
  } catch (error) {
    await Promise.all(Object.values(listening).map((bound) => bound.close(0)))
    await dispose()
    throw error
  }
  return {
    listening,
    say: (line) => base.runPromise(sayAfterLogs(log, line)),
    close: async (graceMs) => {
      await Promise.all(Object.values(listening).map((bound) => bound.close(graceMs)))
      await dispose()
    },
  }
}
