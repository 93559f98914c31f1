/**
 * Reaching a project and being allowed to act in it (seed 001 §5). A project the caller is not in, or that an API
 * key does not belong to, answers 404 as if it did not exist (rule 4); only then does the permission matrix decide,
 * and a "no" there is a 403. A key acts with its holder's current role, read at every use, so a holder moved down to
 * `read` loses write access through their keys at once.
 */
import { Forbidden, NotFound } from "@coffer/kernel"
import { Effect } from "effect"
import type { Caller } from "./Caller.js"
import { type Action, type Actor, can, type Role } from "./domain/permissions.js"
import { isSlug } from "./domain/slug.js"
import { type ProjectAccess, type ProjectRecord, SecretStore } from "./SecretStore.js"

export interface Access {
  readonly project: ProjectRecord
  /** The caller's role, or for a key its holder's role. */
  readonly role: Role
  readonly actor: Actor
}

export const projectNotFound = () => new NotFound({ message: "Project not found" })

const accessFor = (caller: Caller, found: ProjectAccess | undefined): Effect.Effect<Access, NotFound> => {
  if (found === undefined) return Effect.fail(projectNotFound())
  if (caller.kind === "session") {
    return Effect.succeed({ ...found, actor: { kind: "session", role: found.role } })
  }
  if (found.project.id !== caller.projectId) return Effect.fail(projectNotFound())
  return Effect.succeed({ ...found, actor: { kind: "apiKey", scope: caller.scope, holderRole: found.role } })
}

/** The project named by `slug` as the caller may see it, or 404. */
export const reachProject = Effect.fnUntraced(function* (caller: Caller, slug: string) {
  // A segment that is not a slug names no project: answer without a lookup.
  if (!isSlug(slug)) return yield* projectNotFound()
  const store = yield* SecretStore
  return yield* accessFor(caller, yield* store.findProject(slug, caller.userId))
})

/** The project with this id as the caller may see it, or 404. */
export const reachProjectById = Effect.fnUntraced(function* (caller: Caller, projectId: string) {
  const store = yield* SecretStore
  return yield* accessFor(caller, yield* store.findProjectById(projectId, caller.userId))
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

/** Succeeds when the permission matrix lets the caller do `action` in the project; 403 otherwise. */
export const authorize = (access: Access, action: Action): Effect.Effect<void, Forbidden> =>
  can(access.actor, action) ? Effect.void : Effect.fail(new Forbidden({ message: refusals[action] }))

/** `reachProject` then `authorize`. */
export const reachFor = (caller: Caller, slug: string, action: Action) =>
  Effect.tap(reachProject(caller, slug), (access) => authorize(access, action))
