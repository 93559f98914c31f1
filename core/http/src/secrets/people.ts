/**
 * People (seed 001 §4 "People"; session only): members, role changes, removal, invites, and accepting an invite
 * (`POST /api/invites/accept`, rate-limited per client since a token is a credential).
 */
import {
  acceptInvite,
  createInvite,
  deleteInvite,
  listInvites,
  listMembers,
  MemberRole,
  removeMember,
  updateMemberRole,
} from "@coffer/secrets"
import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { rateLimit } from "../auth/rateLimit.js"
import { decodeJson, optionalJson } from "../middleware/jsonBody.js"
import { originFor, type SecretsRoutes, withActor } from "./context.js"

const RoleBody = Schema.Struct({ role: MemberRole })
const InviteBody = Schema.Struct({ role: Schema.optional(MemberRole) })
const AcceptBody = Schema.Struct({ token: Schema.String })

export const ACCEPT_INVITE_PATH = "/api/invites/accept"

export const mountPeople = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  const base = "/api/projects/:slug"

  app.get(`${base}/members`, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => listMembers(actor, c.req.param("slug"))),
    ),
  )
  app.patch(`${base}/members/:userId`, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) =>
        Effect.flatMap(decodeJson(c, RoleBody), ({ role }) =>
          updateMemberRole(actor, c.req.param("slug"), c.req.param("userId"), role),
        ),
      ),
    ),
  )
  app.delete(`${base}/members/:userId`, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => removeMember(actor, c.req.param("slug"), c.req.param("userId"))),
    ),
  )
  app.get(`${base}/invites`, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => listInvites(actor, c.req.param("slug"))),
    ),
  )
  app.post(`${base}/invites`, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) =>
        Effect.flatMap(optionalJson(c, InviteBody), ({ role }) =>
          createInvite(actor, c.req.param("slug"), { role: role ?? "read", publicOrigin: originFor(c, routes) }),
        ),
      ),
      (created) => c.json(created, 201),
    ),
  )
  app.delete(`${base}/invites/:id`, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => deleteInvite(actor, c.req.param("slug"), c.req.param("id"))),
    ),
  )
  app.post(
    ACCEPT_INVITE_PATH,
    rateLimit(handle, {
      group: "secrets:invite-accept",
      limit: routes.settings.rateLimit,
      clientAddress: routes.clientAddress,
    }),
    (c) =>
      handle(
        c,
        withActor(c, routes, (actor) =>
          Effect.flatMap(decodeJson(c, AcceptBody), ({ token }) => acceptInvite(actor, token)),
        ),
      ),
  )
}
