/**
 * People in a project (seed 001 §4 "People", §3 invites): members, role changes, removal, and invites. All of it
 * is for sessions only. Nobody is looked up or added by e-mail: an invite is a single-use link whose token only
 * its holder knows (the store keeps its SHA-256), valid for seven days.
 *
 * The owner is listed first among the members, with role `owner`; the owner's role cannot be changed and the
 * owner cannot leave (the project would have nobody to manage it): both are 400, and deleting the project is the
 * way out.
 */
import { BadRequest, Clock, Hasher, Random, toIso } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { Accounts } from "../Accounts.js"
import { type Actor, authorize, reachFor, reachProject, sessionOnly } from "../access.js"
import { membersOrder, newestFirst, sorted } from "../domain/order.js"
import { isChangeableMember, isPending } from "../domain/people.js"
import type { MemberRole } from "../domain/permissions.js"
import { InviteNotFound, InviteNotPending, MemberNotFound } from "../errors.js"
import { type ApiKeyRecord, SecretStore } from "../SecretStore.js"
import { emailsOf, inviteView, projectView } from "../views.js"
import { renewingKeyChecks } from "./apiKeyChecks.js"
import { auditRecord } from "./audit.js"

/** Seed 001 §8. */
export const INVITE_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000
/** Invite tokens carry this prefix, like every Coffer credential (DESIGN.md). */
export const INVITE_PREFIX = "cfi_"
/** Where an invite link leads on the public origin; the token travels in the fragment, never to a server log. */
export const INVITE_PATH = "/invite#"

/** `cfi_` and 43 base64url characters: anything else cannot name an invite, so it is not looked up. */
const INVITE_TOKEN_SHAPE = /^cfi_[A-Za-z0-9_-]{43}$/

/** The `url` of a new invite: the public origin, then `/invite#<token>` (seed 001 §4). */
export const inviteUrl = (publicOrigin: string, token: string): string => `${publicOrigin}${INVITE_PATH}${token}`

export const listMembers = Effect.fn("Secrets.listMembers")(function* (actor: Actor, slug: string) {
  const person = yield* sessionOnly(actor)
  const access = yield* reachFor(person, slug, "seeMembers")
  const store = yield* SecretStore
  const members = sorted(yield* store.listMembers(access.project.id), membersOrder)
  const emailOf = yield* emailsOf(members.map((member) => member.userId))
  return {
    members: members.map((member) => ({
      userId: member.userId,
      email: emailOf(member.userId),
      role: member.role,
      createdAt: toIso(member.createdAt),
    })),
  }
})

/** The e-mail of a person in the project, for the audit target; 404 when they are not in it. */
const memberEmail = Effect.fnUntraced(function* (userId: string) {
  const user = yield* Accounts.use((accounts) => accounts.findById(userId))
  if (user === undefined) return yield* new MemberNotFound()
  return user.email
})

export const updateMemberRole = Effect.fn("Secrets.updateMemberRole")(function* (
  actor: Actor,
  slug: string,
  userId: string,
  role: MemberRole,
) {
  const person = yield* sessionOnly(actor)
  const access = yield* reachFor(person, slug, "managePeople")
  if (!isChangeableMember(access.project, userId)) {
    return yield* new BadRequest({ message: "The owner's role cannot be changed" })
  }
  const store = yield* SecretStore
  const member = (yield* store.listMembers(access.project.id)).find((candidate) => candidate.userId === userId)
  if (member === undefined) return yield* new MemberNotFound()
  // The role they have already: nothing changes, so nothing is written, and the log does not show a change that
  // was not made (a `member.updated` to `write` reads as a promotion). A change made meanwhile by another request
  // lands after this one, as it would a moment later.
  if (member.role === role) return { ok: true as const }
  const email = yield* memberEmail(userId)
  const audit = yield* auditRecord(person, access.project.id, null, { action: "member.updated", email, role })
  const changed = yield* store.setMemberRole({ projectId: access.project.id, userId, role, audit })
  if (!changed) return yield* new MemberNotFound()
  return { ok: true as const }
})

/**
 * The owner removes anyone but themselves; any member removes themselves. Their API keys go with them, each with an
 * `api_key.deleted` record (seed 001 §2, §3) beside `member.removed`.
 */
export const removeMember = Effect.fn("Secrets.removeMember")(function* (actor: Actor, slug: string, userId: string) {
  const person = yield* sessionOnly(actor)
  const access = yield* reachProject(person, slug)
  if (userId !== person.userId) yield* authorize(access, "managePeople")
  if (!isChangeableMember(access.project, userId)) {
    return yield* new BadRequest({ message: "The owner cannot leave or be removed; delete the project instead" })
  }
  const email = yield* memberEmail(userId)
  const store = yield* SecretStore
  const audit = yield* auditRecord(person, access.project.id, null, { action: "member.removed", email })
  // Their keys for the project go with them, each logged as deleted by this actor; the store reads which keys they
  // are in its transaction, so the records are made there. Checks cached of those keys are abandoned.
  const services = yield* Effect.context<Clock.Clock | Random.Random>()
  const keyAudit = (apiKey: ApiKeyRecord) =>
    Effect.provideContext(
      auditRecord(person, access.project.id, null, { action: "api_key.deleted", name: apiKey.name }),
      services,
    )
  const removed = yield* store
    .removeMember({ projectId: access.project.id, userId, audit, keyAudit })
    .pipe(renewingKeyChecks)
  if (!removed) return yield* new MemberNotFound()
  return { ok: true as const }
})

/** Pending invites only: used, withdrawn and expired ones are gone from the list. */
export const listInvites = Effect.fn("Secrets.listInvites")(function* (actor: Actor, slug: string) {
  const person = yield* sessionOnly(actor)
  const access = yield* reachFor(person, slug, "managePeople")
  const store = yield* SecretStore
  const now = yield* Clock.Clock.use((clock) => clock.now)
  const invites = (yield* store.listInvites(access.project.id)).filter((invite) => isPending(invite, now))
  return { invites: sorted(invites, newestFirst).map(inviteView) }
})

/** A new invite; its token and url are answered this once and never again. */
export const createInvite = Effect.fn("Secrets.createInvite")(function* (
  actor: Actor,
  slug: string,
  input: { readonly role: MemberRole; readonly publicOrigin: string },
) {
  const person = yield* sessionOnly(actor)
  const access = yield* reachFor(person, slug, "managePeople")
  const store = yield* SecretStore
  const random = yield* Random.Random
  const now = yield* Clock.Clock.use((clock) => clock.now)
  const token = yield* random.token(INVITE_PREFIX)
  const invite = {
    id: yield* random.id,
    projectId: access.project.id,
    role: input.role,
    tokenHash: yield* Hasher.Hasher.use((hasher) => hasher.sha256Hex(token)),
    createdBy: person.userId,
    createdAt: now,
    expiresAt: now + INVITE_LIFETIME_MS,
    usedAt: null,
  }
  const audit = yield* auditRecord(person, access.project.id, null, { action: "invite.created", role: input.role })
  yield* store.createInvite({ invite, audit })
  return { invite: inviteView(invite), token, url: inviteUrl(input.publicOrigin, token) }
})

/** Withdraws a pending invite: its link stops working. */
export const deleteInvite = Effect.fn("Secrets.deleteInvite")(function* (actor: Actor, slug: string, inviteId: string) {
  const person = yield* sessionOnly(actor)
  const access = yield* reachFor(person, slug, "managePeople")
  const store = yield* SecretStore
  const now = yield* Clock.Clock.use((clock) => clock.now)
  const invite = (yield* store.listInvites(access.project.id)).find((candidate) => candidate.id === inviteId)
  if (invite === undefined || !isPending(invite, now)) return yield* new InviteNotFound()
  const audit = yield* auditRecord(person, access.project.id, null, { action: "invite.deleted", role: invite.role })
  const deleted = yield* store.deleteInvite({ projectId: access.project.id, inviteId, audit })
  if (!deleted) return yield* new InviteNotFound()
  return { ok: true as const }
})

/**
 * The actor joins the invite's project with its role. Used, withdrawn, expired and unknown tokens all answer
 * the same 404, so a guess learns nothing; someone already in the project gets 409 and the invite stays usable.
 */
export const acceptInvite = Effect.fn("Secrets.acceptInvite")(function* (actor: Actor, token: string) {
  const person = yield* sessionOnly(actor)
  const gone = new InviteNotPending()
  if (!INVITE_TOKEN_SHAPE.test(token)) return yield* gone
  const store = yield* SecretStore
  const now = yield* Clock.Clock.use((clock) => clock.now)
  const invite = yield* store.findInvite(yield* Hasher.Hasher.use((hasher) => hasher.sha256Hex(token)))
  if (invite === undefined || !isPending(invite, now)) return yield* gone
  const audit = yield* auditRecord(person, invite.projectId, null, {
    action: "member.joined",
    email: person.email,
    role: invite.role,
  })
  const project = yield* store.acceptInvite({ inviteId: invite.id, userId: person.userId, at: now, audit })
  if (project === undefined) return yield* gone
  return { project: projectView(project, invite.role) }
})
