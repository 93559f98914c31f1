/**
 * Setting the scene for browser tests through the HTTP API, as another person would: a development login per
 * e-mail, its session cookie kept, JSON in and out. Pages are then checked in the browser.
 */
import type { Page } from "playwright-core"

export interface ApiSession {
  readonly call: <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>
}

export const apiAs = async (base: string, email: string): Promise<ApiSession> => {
  const login = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email }),
  })
  if (!login.ok) throw new Error(`dev-login ${email}: ${login.status}`)
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!
  return {
    call: async <T>(method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { cookie, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
      return (await response.json()) as T
    },
  }
}

/** A project owned by `owner`, with `secrets` set per environment. */
export const seedProject = async (
  owner: ApiSession,
  name: string,
  secrets: Readonly<Record<string, Readonly<Record<string, string>>>> = {},
): Promise<string> => {
  const { project } = await owner.call<{ project: { slug: string } }>("POST", "/api/projects", { name })
  for (const [environment, values] of Object.entries(secrets)) {
    for (const [key, value] of Object.entries(values)) {
      await owner.call("POST", `/api/projects/${project.slug}/environments/${environment}/secrets`, { key, value })
    }
  }
  return project.slug
}

/** Brings `member` into `owner`'s project with `role` through an invite. */
export const addMember = async (owner: ApiSession, member: ApiSession, slug: string, role: "read" | "write") => {
  const { token } = await owner.call<{ token: string }>("POST", `/api/projects/${slug}/invites`, { role })
  await member.call("POST", "/api/invites/accept", { token })
}

/** Signs in through the sign-in page's development-login form. */
export const signInPage = async (page: Page, email: string) => {
  await page.getByLabel("E-mail").fill(email)
  await page.getByRole("button", { name: "Sign in as this e-mail" }).click()
}
