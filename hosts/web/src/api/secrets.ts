/**
 * The Secrets API (seed 001 §4) as typed calls. Body types are the core's own views (`@coffer/secrets`),
 * imported as types only so none of the server code reaches the bundle.
 */
import type {
  EnvironmentView,
  ProjectView,
  SecretListItem,
  SecretView,
  VersionListItem,
  VersionView,
} from "@coffer/secrets"
import { del, get, post, segment } from "./client.js"

export type { EnvironmentView, ProjectView, SecretListItem, SecretView, VersionListItem, VersionView }

export interface User {
  readonly id: string
  readonly email: string
}

/** `GET /api/instance` (seed 001 §2 "instance description"). */
export interface Instance {
  readonly name: string
  readonly version: string
  readonly signIn: {
    readonly oidc: { readonly name: string; readonly url: string } | null
    readonly development: boolean
  }
}

const project = (slug: string) => `/api/projects/${segment(slug)}`
const secretsOf = (slug: string, env: string) => `${project(slug)}/environments/${segment(env)}/secrets`

export const instance = () => get<Instance>("/api/instance", { quietUnauthorized: true })
export const me = () => get<{ user: User }>("/api/auth/me", { quietUnauthorized: true })
export const devLogin = (email: string) =>
  post<{ user: User }>("/api/auth/dev-login", { email }, { quietUnauthorized: true })
export const logout = () => post<{ ok: true }>("/api/auth/logout")

export const listProjects = () => get<{ projects: ReadonlyArray<ProjectView> }>("/api/projects")
export const createProject = (name: string) => post<{ project: ProjectView }>("/api/projects", { name })
export const getProject = (slug: string) =>
  get<{ project: ProjectView; environments: ReadonlyArray<EnvironmentView> }>(project(slug))
export const deleteProject = (slug: string) => del(project(slug))

export const createEnvironment = (slug: string, name: string) =>
  post<{ environment: EnvironmentView }>(`${project(slug)}/environments`, { name })
export const deleteEnvironment = (slug: string, env: string) => del(`${project(slug)}/environments/${segment(env)}`)

export const listSecrets = (slug: string, env: string, signal?: AbortSignal) =>
  get<{ secrets: ReadonlyArray<SecretListItem> }>(secretsOf(slug, env), { signal })
export const readSecret = (slug: string, env: string, key: string) =>
  get<{ secret: SecretView }>(`${secretsOf(slug, env)}/${segment(key)}`)
export const setSecret = (slug: string, env: string, key: string, value: string) =>
  post<{ ok: true; action: "created" | "updated"; version: number }>(secretsOf(slug, env), { key, value })
export const deleteSecret = (slug: string, env: string, key: string) => del(`${secretsOf(slug, env)}/${segment(key)}`)

export const listVersions = (slug: string, env: string, key: string) =>
  get<{ versions: ReadonlyArray<VersionListItem> }>(`${secretsOf(slug, env)}/${segment(key)}/versions`)
export const readVersion = (slug: string, env: string, key: string, version: number) =>
  get<{ secret: VersionView }>(`${secretsOf(slug, env)}/${segment(key)}/versions/${version}`)
export const restoreVersion = (slug: string, env: string, key: string, version: number) =>
  post<{ ok: true; action: "restored"; version: number }>(
    `${secretsOf(slug, env)}/${segment(key)}/versions/${version}/restore`,
  )

/** Where the browser downloads an environment's `.env` or JSON export (a plain same-origin link). */
export const exportUrl = (slug: string, env: string, format: "dotenv" | "json") =>
  `${secretsOf(slug, env)}/${format === "dotenv" ? ".env" : "json"}`
