/**
 * HTTP helpers for tests of the apps: settings from an environment, a runtime on the real in-memory adapters (as
 * a host without a database or Redis runs), a cookie jar, and requests and cookies as a browser sends and sees
 * them.
 */

import { MemoryAccounts, MemoryCache, MemorySessions } from "@coffer/adapter-memory"
import type { SchemasSettings, ServiceSettings } from "@coffer/http"
import { type Cache, Clock, Hasher, Random } from "@coffer/kernel"
import { Settings, schemasAppSettings, secretsAppSettings } from "@coffer/node"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Result from "effect/Result"
import type { Context } from "hono"

export const platform = Layer.mergeAll(Clock.layer, Random.layer, Hasher.layer)

/** Sessions, accounts and cache in memory, as a host without a database or Redis would run them. */
export const memoryRuntime = (options: { readonly cache?: Layer.Layer<Cache.Cache> } = {}) =>
  ManagedRuntime.make(
    Layer.mergeAll(MemorySessions.layer, MemoryAccounts.layer, options.cache ?? MemoryCache.layer).pipe(
      Layer.provideMerge(platform),
    ),
  )

/** The `X-Request-Id` the in-process services send with every call. */
export const TEST_REQUEST_ID = "test-kit"

/** Tests name the client in a header; a host reads the socket instead. */
export const CLIENT_HEADER = "x-test-client"
export const clientAddress = (c: Context) => c.req.header(CLIENT_HEADER)

export { cookieJar } from "@coffer/contract"

/** A JSON POST, as the dashboard sends it. */
export const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(`http://coffer.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  })

/** The attributes of the one `Set-Cookie` line for `name`, lower-cased, with the value under `value`. */
export const cookieAttributes = (response: Response, name: string): Record<string, string> | undefined => {
  const line = response.headers.getSetCookie().find((entry) => entry.startsWith(`${name}=`))
  if (line === undefined) return undefined
  const [pair = "", ...attributes] = line.split(";").map((part) => part.trim())
  const result: Record<string, string> = { value: pair.slice(name.length + 1) }
  for (const attribute of attributes) {
    const at = attribute.indexOf("=")
    if (at === -1) result[attribute.toLowerCase()] = ""
    else result[attribute.slice(0, at).toLowerCase()] = attribute.slice(at + 1)
  }
  return result
}

/** The host's settings from an environment, in development unless told otherwise; throws on a bad one. */
export const hostSettingsFrom = (env: Settings.Env = {}): Settings.Settings =>
  Result.getOrThrow(Settings.parse({ COFFER_ENV: "development", ...env }))

/** The roles settings alone, as the host re-reads them on every request; throws on a bad one. */
export const rolesFrom = (env: Settings.Env): Settings.Roles => Result.getOrThrow(Settings.parseRoles(env))

/** What the host hands the secrets app (or the shared stack) for this environment. */
export const settingsFrom = (env: Settings.Env = {}): ServiceSettings => secretsAppSettings(hostSettingsFrom(env))

/** What the host hands the schemas app for this environment. */
export const schemasSettingsFrom = (env: Settings.Env = {}): SchemasSettings =>
  schemasAppSettings(hostSettingsFrom(env))
