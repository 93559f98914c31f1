/**
 * Setting the scene for the dashboard's browser tests through the schemas API, as another person would: a
 * development login with an e-mail and groups (the roles claim), its session cookie kept; platforms with their
 * versions and schemas. Pages are then checked in the browser.
 */
import type { Page } from "playwright-core"
import type { Browser } from "./browser.js"

export interface SchemasApi {
  /** The answer's JSON; throws on a refusal. */
  readonly call: <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>
  /** The status and JSON body, refusals included. */
  readonly send: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>
}

export const schemasAs = async (
  base: string,
  email: string,
  groups: ReadonlyArray<string> = [],
): Promise<SchemasApi> => {
  const login = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, groups }),
  })
  if (!login.ok) throw new Error(`dev-login ${email}: ${login.status}`)
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!
  const fetchAs = (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  return {
    call: async <T>(method: string, path: string, body?: unknown) => {
      const response = await fetchAs(method, path, body)
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
      return (await response.json()) as T
    },
    send: async (method, path, body) => {
      const response = await fetchAs(method, path, body)
      return { status: response.status, body: await response.json() }
    },
  }
}

/** Platforms with their versions (and kind), through `POST /api/{platform}`. */
export const seedPlatforms = async (
  api: SchemasApi,
  platforms: Readonly<Record<string, ReadonlyArray<string> | { versions: ReadonlyArray<string>; kind?: string }>>,
) => {
  for (const [name, spec] of Object.entries(platforms)) {
    const body = Array.isArray(spec) ? { name, versions: spec } : { name, ...(spec as object) }
    await api.call("POST", `/api/${encodeURIComponent(name)}`, body)
  }
}

/** Saves `content` as the schema of `platform/version` (`PUT /api/{platform}/{version}`). */
export const saveSchema = (api: SchemasApi, id: string, content: unknown) => {
  const [platform, version] = id.split("/") as [string, string]
  return api.call("PUT", `/api/${encodeURIComponent(platform)}/${encodeURIComponent(version)}`, { content })
}

/** A name no other test of the run uses. */
let made = 0
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++made}`

/** Signs in through the dashboard's sign-in page as `email` with `groups`, landing on `path`. */
export const signedIn = async (
  browser: Browser,
  base: string,
  email: string,
  path: string,
  groups: ReadonlyArray<string> = [],
  viewport?: { width: number; height: number },
): Promise<Page> => {
  const page = await browser.open(`${base}/sign-in?returnTo=${encodeURIComponent(path)}`, viewport)
  await page.getByLabel("E-mail").fill(email)
  if (groups.length > 0) await page.getByLabel("Groups").fill(groups.join(", "))
  await page.getByRole("button", { name: "Sign in as this e-mail" }).click()
  await page.waitForURL(`${base}${path}`)
  return page
}
