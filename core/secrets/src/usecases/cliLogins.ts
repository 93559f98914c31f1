/**
 * Command-line logins (`coffer login --web`), a device authorization grant in the spirit of RFC 8628: the command
 * asks for a login and gets a device code (its secret) and a short user code; the person opens the Secrets app,
 * checks the user code, picks a project and approves; the command's next poll receives an API key, created at that
 * moment by `createApiKey` as the approver, so it is audited and holds no more than the approver may create.
 *
 * Pending logins live in the Cache port, so that every instance sharing Redis sees them, for 10 minutes. The cache
 * holds no secret: entries are keyed by the SHA-256 of the device code and of the user code, the approval records
 * who approved and what, and the key itself exists only in the poll's answer. The key is handed out once: the
 * first poll that finds the approval claims it with `increment` (the first claimer counts 1), whichever instance
 * serves it. A cache that cannot be reached fails every step with `StoreUnavailable` (503): nothing is assumed.
 */
import { BadRequest, Cache, Clock, Hasher, parseLabel, Random, toIso } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { type Actor, type SessionActor, sessionOnly } from "../access.js"
import { KeyScope } from "../domain/permissions.js"
import { CliLoginNotFound, CliLoginRefused } from "../errors.js"
import { checkNewApiKey, createApiKey, type NewApiKey } from "./apiKeys.js"

/** RFC 8628 §3.2's `expires_in` and `interval`. */
export const CLI_LOGIN_TTL_SECONDS = 600
export const CLI_LOGIN_INTERVAL_SECONDS = 2
/** Device codes carry this prefix, like every other credential (DESIGN.md "Credentials"). */
export const DEVICE_CODE_PREFIX = "cfd_"
const DEVICE_CODE_SHAPE = /^cfd_[A-Za-z0-9_-]{43}$/
/** Consonants only, so that no code spells a word, and none of 0/O, 1/I/L to misread (RFC 8628 §6.1). */
const USER_CODE_ALPHABET = "BCDFGHJKMNPQRSTVWXZ"
const USER_CODE_LENGTH = 8
export const CLI_LOGIN_NAME_MAX_LENGTH = 64
/** The key's name when the command gives no machine name. */
const DEFAULT_NAME = "Command line"
const TTL_MS = CLI_LOGIN_TTL_SECONDS * 1000
const INTERVAL_MS = CLI_LOGIN_INTERVAL_SECONDS * 1000

const Approval = Schema.Struct({
  userId: Schema.String,
  email: Schema.String,
  ipAddress: Schema.NullOr(Schema.String),
  projectSlug: Schema.String,
  scope: KeyScope,
  expiresInDays: Schema.optionalKey(Schema.Number),
})

/** A pending login as the cache holds it: no code, only hashes; the approval or denial once decided. */
const PendingLogin = Schema.Struct({
  userCodeHash: Schema.String,
  name: Schema.String,
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  approval: Schema.optionalKey(Approval),
  denied: Schema.optionalKey(Schema.Boolean),
})
type PendingLogin = typeof PendingLogin.Type
const PendingLoginJson = Schema.fromJsonString(PendingLogin)
const decodePending = Schema.decodeUnknownOption(PendingLoginJson)
const encodePending = Schema.encodeSync(PendingLoginJson)

const loginKey = (deviceHash: string) => `secrets:cli-login:${deviceHash}`
const codeKey = (userCodeHash: string) => `secrets:cli-login-code:${userCodeHash}`
const decidedKey = (deviceHash: string) => `secrets:cli-login-decided:${deviceHash}`
const claimKey = (deviceHash: string) => `secrets:cli-login-claim:${deviceHash}`
const pollKey = (deviceHash: string, slot: number) => `secrets:cli-login-poll:${deviceHash}:${slot}`

const refused = (code: CliLoginRefused["code"]) => new CliLoginRefused({ code })
const sha256 = (value: string) => Hasher.Hasher.use((hasher) => hasher.sha256Hex(value))
const now = Clock.Clock.use((clock) => clock.now)

/** `ABCD-EFGH`, as shown and typed; lowercase, spaces and a missing dash are forgiven. */
export const normalizeUserCode = (input: string): string | undefined => {
  const letters = input.toUpperCase().replace(/[\s-]/g, "")
  if (letters.length !== USER_CODE_LENGTH || [...letters].some((c) => !USER_CODE_ALPHABET.includes(c))) {
    return undefined
  }
  return `${letters.slice(0, 4)}-${letters.slice(4)}`
}

/** Eight letters of the alphabet, each uniform: bytes past the last whole multiple of its size are drawn again. */
const newUserCode = Effect.gen(function* () {
  const size = USER_CODE_ALPHABET.length
  const limit = 256 - (256 % size)
  let letters = ""
  while (letters.length < USER_CODE_LENGTH) {
    for (const byte of yield* Random.Random.use((random) => random.bytes(16))) {
      if (byte < limit && letters.length < USER_CODE_LENGTH) letters += USER_CODE_ALPHABET[byte % size]
    }
  }
  return `${letters.slice(0, 4)}-${letters.slice(4)}`
})

/**
 * The machine's name as the approver sees it: trimmed, printable, 1 to 64 characters; otherwise why not, naming it
 * `label` (the command line names its `--name` flag, and refuses such a name before asking the service).
 */
export const parseCliLoginName = (input: string, label = "name"): Result.Result<string, string> =>
  parseLabel(label, CLI_LOGIN_NAME_MAX_LENGTH, input)

const parseName = (input: string | undefined) =>
  input === undefined
    ? Effect.succeed(DEFAULT_NAME)
    : Effect.fromResult(parseCliLoginName(input)).pipe(Effect.mapError((message) => new BadRequest({ message })))

/** Starts a login: the codes are answered once, and only their hashes are kept. */
export const startCliLogin = Effect.fn("Secrets.startCliLogin")(function* (input: {
  readonly name?: string | undefined
  readonly publicOrigin: string
}) {
  const name = yield* parseName(input.name)
  const deviceCode = yield* Random.Random.use((random) => random.token(DEVICE_CODE_PREFIX))
  const userCode = yield* newUserCode
  const deviceHash = yield* sha256(deviceCode)
  const userCodeHash = yield* sha256(userCode)
  const createdAt = yield* now
  const pending: PendingLogin = { userCodeHash, name, createdAt, expiresAt: createdAt + TTL_MS }
  const cache = yield* Cache.Cache
  yield* cache.set(loginKey(deviceHash), encodePending(pending), TTL_MS)
  yield* cache.set(codeKey(userCodeHash), deviceHash, TTL_MS)
  return {
    deviceCode,
    userCode,
    verificationUrl: `${input.publicOrigin}/cli-login?code=${userCode}`,
    expiresIn: CLI_LOGIN_TTL_SECONDS,
    interval: CLI_LOGIN_INTERVAL_SECONDS,
  }
})

/** The login a device code names, while it lives. */
const loginByDevice = Effect.fnUntraced(function* (deviceHash: string) {
  const stored = yield* (yield* Cache.Cache).get(loginKey(deviceHash))
  if (stored === undefined) return undefined
  const login = decodePending(stored)
  if (login._tag === "None" || login.value.expiresAt <= (yield* now)) return undefined
  return login.value
})

/** The undecided login a user code names, or 404. */
const pendingByUserCode = Effect.fnUntraced(function* (userCode: string) {
  const normalized = normalizeUserCode(userCode)
  if (normalized === undefined) return yield* new CliLoginNotFound()
  const userCodeHash = yield* sha256(normalized)
  const deviceHash = yield* (yield* Cache.Cache).get(codeKey(userCodeHash))
  if (deviceHash === undefined) return yield* new CliLoginNotFound()
  const login = yield* loginByDevice(deviceHash)
  const hasher = yield* Hasher.Hasher
  if (
    login === undefined ||
    !hasher.equals(login.userCodeHash, userCodeHash) ||
    login.approval !== undefined ||
    login.denied === true
  ) {
    return yield* new CliLoginNotFound()
  }
  return { deviceHash, login }
})

/** What the approver is shown (session only): the machine's name and when the request ends. */
export const getCliLogin = Effect.fn("Secrets.getCliLogin")(function* (actor: Actor, userCode: string) {
  yield* sessionOnly(actor)
  const { login } = yield* pendingByUserCode(userCode)
  return { name: login.name, createdAt: toIso(login.createdAt), expiresAt: toIso(login.expiresAt) }
})

/**
 * Records one decision: the first approval or denial of a login wins (a shared counter), a second one is 404 as
 * for a login already decided. The entry keeps its original expiry.
 */
const decide = Effect.fnUntraced(function* (
  deviceHash: string,
  login: PendingLogin,
  decision: Pick<PendingLogin, "approval" | "denied">,
) {
  const cache = yield* Cache.Cache
  const remaining = login.expiresAt - (yield* now)
  if (remaining <= 0 || (yield* cache.increment(decidedKey(deviceHash), remaining)) !== 1) {
    return yield* new CliLoginNotFound()
  }
  yield* cache.set(loginKey(deviceHash), encodePending({ ...login, ...decision }), remaining)
  yield* cache.delete(codeKey(login.userCodeHash))
  return { ok: true as const }
})

/**
 * Approves a login for one project: refused exactly as `POST /api/api-keys` would refuse this key
 * (`checkNewApiKey`); the key is created only when the command polls, and checked again then.
 */
export const approveCliLogin = Effect.fn("Secrets.approveCliLogin")(function* (
  actor: Actor,
  userCode: string,
  input: Omit<NewApiKey, "name">,
) {
  const person = yield* sessionOnly(actor)
  const { deviceHash, login } = yield* pendingByUserCode(userCode)
  const { scope, expiresInDays } = yield* checkNewApiKey(person, { ...input, name: login.name })
  return yield* decide(deviceHash, login, {
    approval: {
      userId: person.userId,
      email: person.email,
      ipAddress: person.ipAddress,
      projectSlug: input.projectSlug,
      scope,
      ...(expiresInDays === undefined ? {} : { expiresInDays }),
    },
  })
})

export const denyCliLogin = Effect.fn("Secrets.denyCliLogin")(function* (actor: Actor, userCode: string) {
  yield* sessionOnly(actor)
  const { deviceHash, login } = yield* pendingByUserCode(userCode)
  return yield* decide(deviceHash, login, { denied: true })
})

/**
 * A poll by the command (RFC 8628 §3.4–3.5). Until a decision: `authorization_pending`; faster than the interval:
 * `slow_down`; denied: `access_denied`; unknown, expired or already used: `expired_token`. Approved: the first poll
 * claims the login and receives a key created now, as the approver, by `createApiKey`; every later poll, on any
 * instance, finds it used. An approver who may no longer create that key makes it `access_denied`.
 */
export const pollCliLogin = Effect.fn("Secrets.pollCliLogin")(function* (deviceCode: string) {
  if (!DEVICE_CODE_SHAPE.test(deviceCode)) return yield* refused("expired_token")
  const deviceHash = yield* sha256(deviceCode)
  const login = yield* loginByDevice(deviceHash)
  if (login === undefined) return yield* refused("expired_token")
  const cache = yield* Cache.Cache
  if (login.denied === true) return yield* refused("access_denied")
  const approval = login.approval
  if (approval === undefined) {
    // One poll per interval-long slot of the service's clock: polls spaced by the interval never share a slot, and
    // the shared counter makes the second poll in a slot a `slow_down` whichever instance serves it. Only a
    // pending login is paced: once it is decided, the claim below alone decides who gets the key.
    const slot = Math.floor((yield* now) / INTERVAL_MS)
    if ((yield* cache.increment(pollKey(deviceHash, slot), INTERVAL_MS)) > 1) return yield* refused("slow_down")
    return yield* refused("authorization_pending")
  }
  if ((yield* cache.increment(claimKey(deviceHash), TTL_MS)) !== 1) return yield* refused("expired_token")
  yield* cache.delete(loginKey(deviceHash))
  const approver: SessionActor = {
    kind: "session",
    userId: approval.userId,
    email: approval.email,
    ipAddress: approval.ipAddress,
  }
  const created = yield* createApiKey(approver, {
    name: login.name,
    projectSlug: approval.projectSlug,
    scope: approval.scope,
    expiresInDays: approval.expiresInDays,
  }).pipe(Effect.catchTag(["Forbidden", "ProjectNotFound"], () => refused("access_denied")))
  return { ...created, projectSlug: approval.projectSlug }
})
