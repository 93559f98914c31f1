/**
 * `GET /api/auth/me` asked with an API key (`Authorization: Bearer cfk_…`): who the key acts as, so that a
 * command-line tool can say which person, project, scope and expiry it works with, and what the key may do now.
 * The answer extends the session form `{ user }` additively with
 * `apiKey: { id, scope, holderRole, expiresAt, project: { id, slug, name } }` (`apiKeyIdentity`): `holderRole` is
 * the holder's current role in the project, which caps the key (a write key of a read member only reads).
 *
 * Requests without the header fall through to the session route of `auth/secretsAuth.ts`, so mount this first.
 * It is the same operation as that route (`Me`), which describes both answers in the OpenAPI document.
 * A bad key is refused exactly as on every other route (401, counted against the client's rate limit).
 */
import { apiKeyIdentity } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import type { Hono } from "hono"
import { ME_PATH } from "../auth/secretsAuth.js"
import { header } from "../request/header.js"
import { actorOf, type SecretsRoutes } from "./context.js"

export const mountApiKeyIdentity = (app: Hono, routes: SecretsRoutes): void => {
  app.get(ME_PATH, async (c, next) => {
    if (header(c, "Authorization") === undefined) return next()
    return routes.handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const user = { id: actor.userId, email: actor.email }
        if (actor.kind !== "apiKey") return { user }
        return { user, apiKey: yield* apiKeyIdentity(actor) }
      }),
    )
  })
}
