/**
 * Who may do what inside a project: the permission matrix of seed 001 §5, as data, and `can`.
 *
 * Only members reach this question: a project outside the actor's (or key's) reach answers 404 before it
 * is asked, and a key never reaches a project other than its own. A `false` here is a 403.
 *
 * An API key acts as its holder, limited to its scope, and never exceeds the holder's rights (§5.2): the
 * key's column and the holder's column must both say yes. So a write key whose holder was moved down to
 * `read` can no longer write, without the key itself being touched.
 */
import * as Schema from "effect/Schema"

/** The actor's role in a project. */
export const Role = Schema.Literals(["owner", "write", "read"])
export type Role = typeof Role.Type

/** The role a member or an invite carries; the owner is not a member. */
export const MemberRole = Schema.Literals(["read", "write"])
export type MemberRole = typeof MemberRole.Type

/** An API key's scope. */
export const KeyScope = Schema.Literals(["read", "write"])
export type KeyScope = typeof KeyScope.Type

export type Standing =
  | { readonly kind: "session"; readonly role: Role }
  | { readonly kind: "apiKey"; readonly scope: KeyScope; readonly holderRole: Role }

/** The rows of the matrix; the seed's last row ("create projects; manage API keys") is two actions. */
export const ACTIONS = [
  /** Read projects, environments, secrets, logs. */
  "read",
  /** Set or delete secrets, add or remove environments. */
  "writeSecrets",
  /** See who is in a project. */
  "seeMembers",
  /** Invite, change roles, remove people. Removing oneself is not this: any member may leave (§4 People). */
  "managePeople",
  "deleteProject",
  "createProject",
  "manageApiKeys",
] as const
export type Action = (typeof ACTIONS)[number]

/** The columns of the matrix. */
export type Column = "owner" | "writeMember" | "readMember" | "writeKey" | "readKey"

const row = (owner: boolean, writeMember: boolean, readMember: boolean, writeKey: boolean, readKey: boolean) =>
  ({ owner, writeMember, readMember, writeKey, readKey }) as const

/** Seed 001 §5, cell for cell: `true` is "yes", `false` is 403. */
export const PERMISSION_MATRIX: { readonly [A in Action]: { readonly [C in Column]: boolean } } = {
  read: row(true, true, true, true, true),
  // The write key's "only while holder may write" is the holder's column, applied by `can`.
  writeSecrets: row(true, true, false, true, false),
  seeMembers: row(true, true, true, false, false),
  managePeople: row(true, false, false, false, false),
  deleteProject: row(true, false, false, false, false),
  createProject: row(true, true, true, false, false),
  manageApiKeys: row(true, true, true, false, false),
}

const roleColumn: { readonly [R in Role]: Column } = { owner: "owner", write: "writeMember", read: "readMember" }
const scopeColumn: { readonly [S in KeyScope]: Column } = { write: "writeKey", read: "readKey" }

/** Whether an actor with this standing, a member of the project (or a key of it), may perform `action` there. */
export const can = (actor: Standing, action: Action): boolean => {
  const cells = PERMISSION_MATRIX[action]
  if (actor.kind === "session") return cells[roleColumn[actor.role]]
  return cells[scopeColumn[actor.scope]] && cells[roleColumn[actor.holderRole]]
}

/**
 * The role an actor acts with, the `role` a project answers with ("the caller's role", seed 001 §3): a person's own;
 * a key's is what it may do, its scope bounded by its holder's role. Never `owner` (no key manages a project), and
 * `write` only for a write key whose holder may write.
 */
export const roleOf = (actor: Standing): Role =>
  actor.kind === "session" ? actor.role : can(actor, "writeSecrets") ? "write" : "read"

/**
 * Whether a person with `role` may hold a key of `scope` (§4 API keys): a write key needs write access, so
 * read members create only read keys.
 */
export const mayHoldScope = (role: Role, scope: KeyScope): boolean => scope === "read" || role !== "read"
