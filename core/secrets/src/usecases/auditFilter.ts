/**
 * The audit log's filters (`?action=&key=&user=&environment=&apiKey=`, decided in the package README, as the seed shows
 * only paging): what each query value means, checked here as text like `limit` and `offset`, and turned into the
 * store's `AuditFilter` (SecretStore rule 12), which the database applies before it pages.
 *
 * - `action`: one of seed 001 §2's actions, exactly; anything else is a 400 naming the parameter.
 * - `key`: a secret key by the naming rules (a 400 otherwise): its records, `<KEY>` and `<KEY>@<n>`, of the secret
 *   actions only, so a project, environment or API key named like the secret does not match.
 * - `user`: an e-mail address, compared as accounts compare them (`Accounts.emailKey`: NFC, any case).
 * - `environment`: the name of one of the project's environments now, looked up as the secret routes do (404 when
 *   there is none). The records of a deleted environment keep its id, which no name reaches any more: they stay
 *   in the unfiltered log and are found by key, action or person.
 * - `apiKey`: an API key's id (a 400 for text that cannot be one): what was done with that key. Not looked up: a
 *   deleted key's records remain and stay findable by its id, and an id no key ever had simply matches nothing.
 */
import { BadRequest } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { emailKey } from "../Accounts.js"
import type { Access } from "../access.js"
import { isApiKeyId } from "../domain/apiKeyId.js"
import { AUDIT_ACTIONS, type AuditAction, isAuditAction, SECRET_ACTIONS } from "../domain/audit.js"
import { parseSecretKey } from "../domain/names.js"
import { EnvironmentNotFound } from "../errors.js"
import { type AuditFilter, SecretStore } from "../SecretStore.js"

/** The filters as the query string gives them: text, or absent. */
export interface AuditFilterQuery {
  readonly action?: string | undefined
  readonly key?: string | undefined
  readonly user?: string | undefined
  readonly environment?: string | undefined
  readonly apiKey?: string | undefined
}

const parseAction = (text: string): Result.Result<AuditAction, BadRequest> =>
  isAuditAction(text)
    ? Result.succeed(text)
    : Result.fail(new BadRequest({ message: `action must be one of ${AUDIT_ACTIONS.join(", ")}` }))

const parseKey = (text: string): Result.Result<string, BadRequest> =>
  Result.mapError(parseSecretKey(text), (error) => new BadRequest({ message: `key is not valid: ${error.message}` }))

const parseUser = (text: string): Result.Result<string, BadRequest> =>
  text.trim() === ""
    ? Result.fail(new BadRequest({ message: "user must be an e-mail address" }))
    : Result.succeed(emailKey(text))

const parseApiKey = (text: string): Result.Result<string, BadRequest> =>
  isApiKeyId(text)
    ? Result.succeed(text)
    : Result.fail(new BadRequest({ message: "apiKey must be an API key's id, as the API key list gives it" }))

/** The actions a record may have: the one asked for, narrowed to the secret actions when a key is asked for. */
const actionsOf = (action: AuditAction | undefined, key: string | undefined) => {
  if (key === undefined) return action === undefined ? undefined : [action]
  return action === undefined ? SECRET_ACTIONS : SECRET_ACTIONS.filter((candidate) => candidate === action)
}

/** The store's filter for `query` in the reached project; 400 for a value that means nothing, 404 as above. */
export const parseAuditFilter = Effect.fnUntraced(function* (access: Access, query: AuditFilterQuery) {
  const optional = <A>(text: string | undefined, parse: (text: string) => Result.Result<A, BadRequest>) =>
    text === undefined ? Effect.succeed(undefined) : Effect.fromResult(parse(text))
  const action = yield* optional(query.action, parseAction)
  const secretKey = yield* optional(query.key, parseKey)
  const userEmailKey = yield* optional(query.user, parseUser)
  const apiKeyId = yield* optional(query.apiKey, parseApiKey)
  let environmentId: string | undefined
  if (query.environment !== undefined) {
    const store = yield* SecretStore
    const environment = yield* store.findEnvironment(access.project.id, query.environment)
    if (environment === undefined) return yield* new EnvironmentNotFound()
    environmentId = environment.id
  }
  const filter: AuditFilter = {
    actions: actionsOf(action, secretKey),
    secretKey,
    userEmailKey,
    environmentId,
    apiKeyId,
  }
  return filter
})
