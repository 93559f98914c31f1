/**
 * People (seed 001 §4 "People"; session only): members, role changes, removal, invites, and accepting an invite
 * (`POST /api/invites/accept`, rate-limited per client since a token is a credential).
 */
import {
  acceptInvite,
  createInvite,
  deleteInvite,
  InviteView,
  listInvites,
  listMembers,
  MemberRole,
  MemberView,
  ProjectView,
  removeMember,
  updateMemberRole,
} from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Context, Hono } from "hono"
import { rateLimit } from "../auth/rateLimit.js"
import { Ok, SESSION } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { originFor, PROJECT_PARAM, type SecretsRoutes, withActor } from "./context.js"

const RoleBody = Schema.Struct({ role: MemberRole })
const InviteBody = Schema.Struct({ role: Schema.optionalKey(MemberRole).annotate({ description: "Default `read`" }) })
const AcceptBody = Schema.Struct({ token: Schema.String.annotate({ description: "The invite's token (`cfi_…`)" }) })

export const ACCEPT_INVITE_PATH = "/api/invites/accept"

const TAG = "People"
const BASE = "/api/projects/:slug"
const MEMBER_PARAMS = { ...PROJECT_PARAM, userId: "The member's user id" }

export const ListMembers = endpoint({
  method: "GET",
  path: `${BASE}/members`,
  summary: "A project's members, owner first",
  tag: TAG,
  security: SESSION,
  params: PROJECT_PARAM,
  responses: { 200: Schema.Struct({ members: Schema.Array(MemberView) }) },
  errors: [403, 404],
})

export const ChangeRole = endpoint({
  method: "PATCH",
  path: `${BASE}/members/:userId`,
  summary: "Change a member's role",
  description: "Owner only.",
  tag: TAG,
  security: SESSION,
  params: MEMBER_PARAMS,
  body: RoleBody,
  responses: { 200: Ok },
  errors: [403, 404],
})

export const RemoveMember = endpoint({
  method: "DELETE",
  path: `${BASE}/members/:userId`,
  summary: "Remove a member",
  description:
    "The owner removes anyone, a member removes themselves (400 for the owner); their API keys for the project are deleted.",
  tag: TAG,
  security: SESSION,
  params: MEMBER_PARAMS,
  responses: { 200: Ok },
  errors: [400, 403, 404],
})

export const ListInvites = endpoint({
  method: "GET",
  path: `${BASE}/invites`,
  summary: "Pending invites",
  description: "Owner only.",
  tag: TAG,
  security: SESSION,
  params: PROJECT_PARAM,
  responses: { 200: Schema.Struct({ invites: Schema.Array(InviteView) }) },
  errors: [403, 404],
})

export const CreateInvite = endpoint({
  method: "POST",
  path: `${BASE}/invites`,
  summary: "Invite someone",
  description:
    "Owner only. The token and the link (`<public origin>/invite#<token>`) are shown this once; the invite works " +
    "once, for 7 days. The body may be left out.",
  tag: TAG,
  security: SESSION,
  params: PROJECT_PARAM,
  body: InviteBody,
  bodyOptional: true,
  responses: { 201: Schema.Struct({ invite: InviteView, token: Schema.String, url: Schema.String }) },
  errors: [403, 404],
})

export const DeleteInvite = endpoint({
  method: "DELETE",
  path: `${BASE}/invites/:id`,
  summary: "Withdraw an invite",
  description: "Owner only.",
  tag: TAG,
  security: SESSION,
  params: { ...PROJECT_PARAM, id: "The invite's id" },
  responses: { 200: Ok },
  errors: [403, 404],
})

export const AcceptInvite = endpoint({
  method: "POST",
  path: ACCEPT_INVITE_PATH,
  summary: "Accept an invite",
  description: "404 when used, withdrawn or expired; 409 when already in the project. Rate-limited per client.",
  tag: TAG,
  security: SESSION,
  body: AcceptBody,
  responses: { 200: Schema.Struct({ project: ProjectView }) },
  errors: [403, 404, 409],
})

export const mountPeople = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  const slug = (c: Context) => c.req.param("slug") ?? ""
  const userId = (c: Context) => c.req.param("userId") ?? ""

  route(app, ListMembers, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => listMembers(actor, slug(c))),
    ),
  )
  route(app, ChangeRole, (c, { body }) =>
    handle(
      c,
      withActor(c, routes, (actor) =>
        Effect.flatMap(body, ({ role }) => updateMemberRole(actor, slug(c), userId(c), role)),
      ),
    ),
  )
  route(app, RemoveMember, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => removeMember(actor, slug(c), userId(c))),
    ),
  )
  route(app, ListInvites, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => listInvites(actor, slug(c))),
    ),
  )
  route(app, CreateInvite, (c, { body }) =>
    handle(
      c,
      withActor(c, routes, (actor) =>
        Effect.flatMap(body, ({ role }) =>
          createInvite(actor, slug(c), { role: role ?? "read", publicOrigin: originFor(c, routes) }),
        ),
      ),
      (created) => c.json(created, 201),
    ),
  )
  route(app, DeleteInvite, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => deleteInvite(actor, slug(c), c.req.param("id") ?? "")),
    ),
  )
  route(
    app,
    AcceptInvite,
    (c, { body }) =>
      handle(
        c,
        withActor(c, routes, (actor) => Effect.flatMap(body, ({ token }) => acceptInvite(actor, token))),
      ),
    [
      rateLimit(handle, {
        group: "secrets:invite-accept",
        limit: routes.settings.rateLimit,
        clientAddress: routes.clientAddress,
      }),
    ],
  )
}
