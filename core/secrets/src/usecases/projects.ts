/**
 * Projects (seed 001 §4 "Projects"): list, create, get, delete. A new project gets its own data key, wrapped by
 * the master key (DESIGN.md "Secret values: envelope encryption"), and the three default environments; its
 * creator is its owner.
 */
import {
  type Cache,
  Cipher,
  Clock,
  type Forbidden,
  MasterKeyCheck,
  Random,
  type StoreUnavailable,
} from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { type Actor, authorize, projectNotFound, reachFor, sessionOnly } from "../access.js"
import { DEFAULT_ENVIRONMENTS, type InvalidName } from "../domain/names.js"
import { bySlug, byStage, sorted } from "../domain/order.js"
import { roleOf } from "../domain/permissions.js"
import { deriveSlug, parseProjectName } from "../domain/slug.js"
import type { ProjectExists, ProjectNotFound } from "../errors.js"
import { SecretStore } from "../SecretStore.js"
import { environmentView, type ProjectView, projectView } from "../views.js"
import { renewingKeyChecks } from "./apiKeyChecks.js"
import { auditRecord } from "./audit.js"
import { forgetDataKey } from "./dataKeys.js"

/** The projects the actor owns or belongs to; an API key sees its own project only. */
export const listProjects = Effect.fn("Secrets.listProjects")(function* (actor: Actor) {
  const store = yield* SecretStore
  const found = sorted(yield* store.listProjects(actor.userId), bySlug)
  if (actor.kind === "session") return { projects: found.map(({ project, role }) => projectView(project, role)) }
  // A key sees its own project, with the role it acts with there, not its holder's.
  return {
    projects: found
      .filter(({ project }) => project.id === actor.projectId)
      .map(({ project, role }) =>
        projectView(project, roleOf({ kind: "apiKey", scope: actor.scope, holderRole: role })),
      ),
  }
})

/** What creating and deleting a project need: a data key comes from the cipher, and leaves its memory. */
type ProjectServices = SecretStore | Cipher.Cipher | Clock.Clock | Random.Random
/** Creating first checks the master key against the canary. */
type CreateServices = ProjectServices | MasterKeyCheck.KeyCanary
/** Deleting also renews the API-key checks' generation: the project's keys go with it. */
type DeleteServices = ProjectServices | Cache.Cache

export const createProject = Effect.fn("Secrets.createProject")(function* (
  actor: Actor,
  input: { readonly name: string },
): Effect.fn.Return<
  { readonly project: ProjectView },
  Forbidden | InvalidName | ProjectExists | StoreUnavailable | MasterKeyCheck.MasterKeyMismatch,
  CreateServices
> {
  // The matrix's "create projects" row: keys 403, every signed-in person yes.
  const person = yield* sessionOnly(actor)
  const name = yield* Effect.fromResult(parseProjectName(input.name))
  const slug = yield* Effect.fromResult(deriveSlug(name))
  const store = yield* SecretStore
  const cipher = yield* Cipher.Cipher
  const random = yield* Random.Random
  const createdAt = yield* Clock.Clock.use((clock) => clock.now)
  // An instance still on the master key that `coffer keys rotate` moved the data off would wrap this project's key
  // under a key the others are about to drop: the project would hold nothing they can open. Its `/readyz` already
  // fails; this refuses the one write that would be lost with it (every other write seals under an existing key).
  yield* MasterKeyCheck.verify
  const dataKey = yield* cipher.newDataKey.pipe(Effect.orDie)
  const project = { id: yield* random.id, name, slug, ownerId: person.userId, createdAt, dataKey, dataKeyVersion: 1 }
  const environments = yield* Effect.forEach(DEFAULT_ENVIRONMENTS, (environment) =>
    Effect.map(random.id, (id) => ({ id, projectId: project.id, name: environment, createdAt })),
  )
  const audit = yield* auditRecord(person, project.id, null, { action: "project.created", slug })
  yield* store.createProject({ project, environments, audit })
  return { project: projectView(project, "owner") }
})

/** The project with its environments. */
export const getProject = Effect.fn("Secrets.getProject")(function* (actor: Actor, slug: string) {
  const access = yield* reachFor(actor, slug, "read")
  const store = yield* SecretStore
  const environments = sorted(yield* store.listEnvironments(access.project.id), byStage)
  return {
    project: projectView(access.project, roleOf(access.standing)),
    environments: environments.map(environmentView),
  }
})

/**
 * Owner only; everything in the project goes with it. A delete that finds nothing left to delete (a concurrent one
 * got there first, after this one reached the project) answers 404 like any later one, on every store.
 */
export const deleteProject = Effect.fn("Secrets.deleteProject")(function* (
  actor: Actor,
  slug: string,
): Effect.fn.Return<{ readonly ok: true }, ProjectNotFound | Forbidden | StoreUnavailable, DeleteServices> {
  const access = yield* reachFor(actor, slug, "read")
  yield* authorize(access, "deleteProject")
  const store = yield* SecretStore
  const audit = yield* auditRecord(actor, access.project.id, null, {
    action: "project.deleted",
    slug: access.project.slug,
  })
  // Its keys go with it: checks cached of those keys are abandoned.
  const deleted = yield* store.deleteProject({ projectId: access.project.id, audit }).pipe(renewingKeyChecks)
  // Its data key has nothing left to open: its unwrapped copy leaves this process's memory now, also when another
  // request (perhaps on another instance, which forgot only its own copy) deleted the project.
  yield* forgetDataKey(access.project.dataKey)
  if (!deleted) return yield* projectNotFound()
  return { ok: true as const }
})
