/**
 * Who is asking, as the use cases see it, and reaching a project as them (seed 001 §5).
 *
 * An actor is a person signed in with a session, or an API key acting as its holder within its own project. The
 * HTTP layer establishes it (cookie or `Authorization: Bearer`); the use cases never look at a request.
 * `ipAddress` travels with it because every audit record carries it.
 *
 * A project the actor is not in, or that an API key does not belong to, answers 404 as if it did not exist
 * (rule 4); only then does the permission matrix decide, and a "no" there is a 403. A key acts with its holder's
 * current role, read at every use, so a holder moved down to `read` loses write access through their keys at once.
 */
import { type EpochMillis, Forbidden } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { type Action, can, type KeyScope, type Role, type Standing } from "./domain/permissions.js"
import { isSlug } from "./domain/slug.js"
import { EnvironmentNotFound, ProjectNotFound } from "./errors.js"
import {
  type EnvironmentRecord,
  type ProjectAccess,
  type ProjectRecord,
  type ReadSecretAtInput,
  SecretStore,
} from "./SecretStore.js"

interface Person {
  readonly userId: string
  /** The e-mail recorded in audit entries. */
  readonly email: string
  /** The client's address, for the audit log; `null` when the host cannot tell. */
  readonly ipAddress: string | null
}

export interface SessionActor extends Person {
  readonly kind: "session"
}

export interface ApiKeyActor extends Person {
  readonly kind: "apiKey"
  readonly keyId: string
  /** The key's name, which its audit records keep beside its id (`usecases/audit.ts`). */
  readonly keyName: string
  /** The only project the key reaches; every other one answers 404. */
  readonly projectId: string
  readonly scope: KeyScope
  /** When the key stops working, or `null` for never; `GET /api/auth/me` tells the key's holder. */
  readonly expiresAt: EpochMillis | null
}

export type Actor = SessionActor | ApiKeyActor

/**
 * People and API-key endpoints, and creating projects, are for sessions only (seed 001 §5): a key is refused
 * with 403 before anything is looked up, so the answer says nothing about other projects.
 */
export const sessionOnly = (actor: Actor): Effect.Effect<SessionActor, Forbidden> =>
  actor.kind === "session"
    ? Effect.succeed(actor)
    : Effect.fail(new Forbidden({ message: "API keys cannot be used here; sign in instead" }))

export interface Access {
  readonly project: ProjectRecord
  /** The actor's role, or for a key its holder's role. */
  readonly role: Role
  readonly standing: Standing
}

export const projectNotFound = () => new ProjectNotFound()

const accessFor = (actor: Actor, found: ProjectAccess | undefined): Effect.Effect<Access, ProjectNotFound> => {
  if (found === undefined) return Effect.fail(projectNotFound())
  if (actor.kind === "session") {
    return Effect.succeed({ ...found, standing: { kind: "session", role: found.role } })
  }
  if (found.project.id !== actor.projectId) return Effect.fail(projectNotFound())
  return Effect.succeed({ ...found, standing: { kind: "apiKey", scope: actor.scope, holderRole: found.role } })
}

/** The project named by `slug` as the actor may see it, or 404. */
export const reachProject = Effect.fnUntraced(function* (actor: Actor, slug: string) {
  // A segment that is not a slug names no project: answer without a lookup.
  if (!isSlug(slug)) return yield* projectNotFound()
  const store = yield* SecretStore
  return yield* accessFor(actor, yield* store.findProject(slug, actor.userId))
})

/** The project with this id as the actor may see it, or 404. */
export const reachProjectById = Effect.fnUntraced(function* (actor: Actor, projectId: string) {
  const store = yield* SecretStore
  return yield* accessFor(actor, yield* store.findProjectById(projectId, actor.userId))
})

const refusals: { readonly [A in Action]: string } = {
  read: "You may not read this project",
  writeSecrets: "Read access only: you may not change secrets or environments in this project",
  seeMembers: "You may not see who is in this project",
  managePeople: "Only the project owner may invite, change roles or remove people",
  deleteProject: "Only the project owner may delete the project",
  createProject: "You may not create projects",
  manageApiKeys: "You may not manage API keys",
}

/** Succeeds when the permission matrix lets the actor do `action` in the project; 403 otherwise. */
export const authorize = (access: Access, action: Action): Effect.Effect<void, Forbidden> =>
  can(access.standing, action) ? Effect.void : Effect.fail(new Forbidden({ message: refusals[action] }))

/** `reachProject` then `authorize`. */
export const reachFor = (actor: Actor, slug: string, action: Action) =>
  Effect.tap(reachProject(actor, slug), (access) => authorize(access, action))

/**
 * `reachFor` then the environment named `name` in that project, with one store read for both (the secret routes'
 * first step); the answers are `reachFor`'s, then 404 when the project has no such environment. Names in paths are
 * looked up as given, not checked against today's rules, so data imported from an earlier implementation stays
 * reachable. With `key`, the same read brings the secret under it (`secret`, undefined when there is none).
 */
export const reachEnvironment = Effect.fnUntraced(function* (
  actor: Actor,
  slug: string,
  name: string,
  action: Action,
  key?: string,
) {
  if (!isSlug(slug)) return yield* projectNotFound()
  const store = yield* SecretStore
  const found = yield* store.findProjectEnvironment(slug, actor.userId, name, key)
  const access = yield* accessFor(actor, found?.access)
  yield* authorize(access, action)
  const environment: EnvironmentRecord | undefined = found?.environment
  if (environment === undefined) return yield* new EnvironmentNotFound()
  return { access, environment, secret: found?.secret }
})

/**
 * `reachEnvironment(actor, slug, name, "read")` and the current version of the secret under `key` in one store
 * read, which writes `audit` in the same transaction when it finds a value (`readSecretAt`, rule 2): the API's most
 * frequent request, one round trip on Postgres where the two steps took two. The store may write the record before
 * the answers below are decided because they cannot refuse what it found: it looked only in the actor's own project
 * (for a key, the key's), and every member and every key may read (the permission matrix's `read` row, which
 * `domain/permissions.test.ts` holds to that).
 */
export const readReached = Effect.fnUntraced(function* (
  actor: Actor,
  slug: string,
  name: string,
  key: string,
  audit: ReadSecretAtInput["audit"],
) {
  if (!isSlug(slug)) return yield* projectNotFound()
  const store = yield* SecretStore
  const found = yield* store.readSecretAt({
    slug,
    userId: actor.userId,
    projectId: actor.kind === "apiKey" ? actor.projectId : undefined,
    environment: name,
    key,
    audit,
  })
  const access = yield* accessFor(actor, found?.access)
  yield* authorize(access, "read")
  const environment: EnvironmentRecord | undefined = found?.environment
  if (environment === undefined) return yield* new EnvironmentNotFound()
  return { access, environment, secret: found?.secret, sealed: found?.sealed }
})
