/**
 * Command-line logins (`coffer login --web`; `@coffer/secrets` `cliLogins.ts`): the command starts one and polls
 * with its device code, with no credential; the person approves or denies it with a session, by its user code.
 *
 * Starting one needs no credential, so each start counts against the client's rate limit in the group of failed
 * credential checks, as does a poll with a device code that names no login (guessing one is guessing a
 * credential). Polls that wait (`authorization_pending`, `slow_down`) are not counted: a command polling at the
 * interval for ten minutes must not lock its own address out. Every request naming a user code (reading, approving,
 * denying) counts in a group of its own before its route runs, as an invite's acceptance does (RFC 8628 §5.1): a
 * signed-in person guessing codes would otherwise try every pending one unthrottled, and an approved guess hands
 * someone's command a key to the guesser's project. Counting only the misses would not do: a guess that hits after
 * the limit would still be answered. A person approving their own login makes two or three such requests.
 */
import {
  approveCliLogin,
  CLI_LOGIN_NAME_MAX_LENGTH,
  denyCliLogin,
  getCliLogin,
  IsoTime,
  KeyScope,
  pollCliLogin,
  startCliLogin,
} from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Context, Hono } from "hono"
import { limitAttempt, rateLimit } from "../auth/rateLimit.js"
import { CliLoginRefusedBody } from "../errors.js"
import { Ok, PUBLIC, SESSION } from "../openapi/common.js"
import { Label } from "../openapi/documented.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { ExpiresInDays, IssuedKey } from "./apiKeys.js"
import { CREDENTIALS_GROUP, originFor, type SecretsRoutes, withActor } from "./context.js"

const TAG = "Command-line logins"
const BASE = "/api/cli-logins"
const CODE_PARAM = { userCode: "The code the command shows (`ABCD-EFGH`)" }

const StartBody = Schema.Struct({
  name: Schema.optionalKey(
    Label(CLI_LOGIN_NAME_MAX_LENGTH, "The machine's name, shown to the approver and given to the key"),
  ),
})
const Started = Schema.Struct({
  deviceCode: Schema.String.annotate({ description: "The command's secret for polling (`cfd_…`), shown this once" }),
  userCode: Schema.String.annotate({ description: "The code the person checks in the browser (`ABCD-EFGH`)" }),
  verificationUrl: Schema.String.annotate({ description: "The Secrets app's page that approves this login" }),
  expiresIn: Schema.Int.annotate({ description: "Seconds until the login expires" }),
  interval: Schema.Int.annotate({ description: "Seconds to wait between polls" }),
}).annotate({ identifier: "CliLoginStarted" })
const PendingView = Schema.Struct({ name: Schema.String, createdAt: IsoTime, expiresAt: IsoTime }).annotate({
  identifier: "CliLogin",
})
const ApproveBody = Schema.Struct({
  projectSlug: Schema.String,
  scope: Schema.optionalKey(KeyScope).annotate({ description: "Default `read`; `write` needs write access" }),
  expiresInDays: ExpiresInDays,
})
const TokenBody = Schema.Struct({ deviceCode: Schema.String })
const Issued = Schema.Struct({ ...IssuedKey.fields, projectSlug: Schema.String }).annotate({
  identifier: "CliLoginKey",
})

export const StartCliLogin = endpoint({
  method: "POST",
  path: BASE,
  summary: "Start a command-line login",
  description: "No credential; rate-limited per client. Expires after 10 minutes.",
  tag: TAG,
  security: PUBLIC,
  body: StartBody,
  bodyOptional: true,
  responses: { 201: Started },
  errors: [400, 429],
})

export const PollCliLogin = endpoint({
  method: "POST",
  path: `${BASE}/token`,
  summary: "Poll a command-line login for its API key",
  description:
    "RFC 8628 §3.5: 400 with `code` `authorization_pending`, `slow_down` (wait 5 s longer), `access_denied` or " +
    "`expired_token` (unknown, expired or already used). Once approved, the first poll receives a key created at " +
    "that moment as the approver; every later poll answers `expired_token`.",
  tag: TAG,
  security: PUBLIC,
  body: TokenBody,
  responses: { 200: Issued },
  errors: [[400, CliLoginRefusedBody], 429],
})

export const GetCliLogin = endpoint({
  method: "GET",
  path: `${BASE}/:userCode`,
  summary: "A pending command-line login",
  description: "404 when unknown, expired, approved or denied.",
  tag: TAG,
  security: SESSION,
  params: CODE_PARAM,
  responses: { 200: PendingView },
  errors: [403, 404, 429],
})

export const ApproveCliLogin = endpoint({
  method: "POST",
  path: `${BASE}/:userCode/approve`,
  summary: "Approve a command-line login for one project",
  description: "The rules of `POST /api/api-keys`; the key is created when the command next polls.",
  tag: TAG,
  security: SESSION,
  params: CODE_PARAM,
  body: ApproveBody,
  responses: { 200: Ok },
  errors: [400, 403, 404, 429],
})

export const DenyCliLogin = endpoint({
  method: "POST",
  path: `${BASE}/:userCode/deny`,
  summary: "Deny a command-line login",
  tag: TAG,
  security: SESSION,
  params: CODE_PARAM,
  responses: { 200: Ok },
  errors: [403, 404, 429],
})

export const mountCliLogins = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  const userCode = (c: Context) => c.req.param("userCode") ?? ""
  const attempt = (c: Context) =>
    limitAttempt(c, { group: CREDENTIALS_GROUP, limit: routes.settings.rateLimit, clientAddress: routes.clientAddress })
  /** Each request naming a user code, counted before the route looks the code up. */
  const byUserCode = [
    rateLimit(handle, {
      group: "secrets:cli-login-code",
      limit: routes.settings.rateLimit,
      clientAddress: routes.clientAddress,
    }),
  ]

  route(app, StartCliLogin, (c, { body }) =>
    handle(
      c,
      Effect.flatMap(attempt(c), () =>
        Effect.flatMap(body, (input) => startCliLogin({ name: input?.name, publicOrigin: originFor(c, routes) })),
      ),
      (started) => c.json(started, 201),
    ),
  )
  route(app, PollCliLogin, (c, { body }) =>
    handle(
      c,
      Effect.flatMap(body, ({ deviceCode }) => pollCliLogin(deviceCode)).pipe(
        Effect.tapError((error) =>
          error._tag === "CliLoginRefused" && error.code === "expired_token" ? attempt(c) : Effect.void,
        ),
      ),
    ),
  )
  route(
    app,
    GetCliLogin,
    (c) =>
      handle(
        c,
        withActor(c, routes, (actor) => getCliLogin(actor, userCode(c))),
      ),
    byUserCode,
  )
  route(
    app,
    ApproveCliLogin,
    (c, { body }) =>
      handle(
        c,
        withActor(c, routes, (actor) => Effect.flatMap(body, (input) => approveCliLogin(actor, userCode(c), input))),
      ),
    byUserCode,
  )
  route(
    app,
    DenyCliLogin,
    (c) =>
      handle(
        c,
        withActor(c, routes, (actor) => denyCliLogin(actor, userCode(c))),
      ),
    byUserCode,
  )
}
