/**
 * Who is asking, as the use cases see it: a person signed in with a session, or an API key acting as its holder
 * within its own project (seed 001 §5). The HTTP layer establishes it (cookie or `Authorization: Bearer`); the
 * use cases never look at a request. `ipAddress` travels with it because every audit record carries it.
 */
import { Forbidden } from "@coffer/kernel"
import { Effect } from "effect"
import type { KeyScope } from "./domain/permissions.js"

interface Person {
  readonly userId: string
  /** The e-mail recorded in audit entries. */
  readonly email: string
  /** The client's address, for the audit log; `null` when the host cannot tell. */
  readonly ipAddress: string | null
}

export interface SessionCaller extends Person {
  readonly kind: "session"
}

export interface ApiKeyCaller extends Person {
  readonly kind: "apiKey"
  readonly keyId: string
  /** The only project the key reaches; every other one answers 404. */
  readonly projectId: string
  readonly scope: KeyScope
  /** When the key stops working (ISO 8601), or `null` for never; `GET /api/auth/me` tells the key's holder. */
  readonly expiresAt: string | null
}

export type Caller = SessionCaller | ApiKeyCaller

/**
 * People and API-key endpoints, and creating projects, are for sessions only (seed 001 §5): a key is refused
 * with 403 before anything is looked up, so the answer says nothing about other projects.
 */
export const sessionOnly = (caller: Caller): Effect.Effect<SessionCaller, Forbidden> =>
  caller.kind === "session"
    ? Effect.succeed(caller)
    : Effect.fail(new Forbidden({ message: "API keys cannot be used here; sign in instead" }))
