/**
 * `coffer login --web`: the command's half of the Secrets service's device login (`POST /api/cli-logins`, RFC
 * 8628). It asks for a login, shows the URL and the code, and polls at the interval the server set, 5 s slower
 * after each `slow_down` (RFC 8628 §3.5), until the person approves (the answer holds a new API key), denies it, or
 * it expires. Interrupting (Ctrl-C) stops the polling between two requests or during one.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { authFailure, type CofferFailure, refused } from "./failure.js"
import { decodeAnswer, request } from "./http.js"

/**
 * The approval page's URL, as the server gives it: printed to the terminal, and handed to the platform's opener,
 * which on Windows is `cmd`, where `&`, `|`, `<`, `>`, `^` and `%` mean commands and variables. So only an http or
 * https URL of plain characters is taken (a Coffer's is `<public origin>/cli-login?code=ABCD-EFGH`); a server that
 * answers anything else is not followed.
 */
const PageUrl = Schema.String.check(
  Schema.makeFilter(
    (url) => {
      if (!/^https?:\/\/[A-Za-z0-9\-._~:/?=[\]]+$/.test(url)) return false
      try {
        const parsed = new URL(url)
        return parsed.username === "" && parsed.password === ""
      } catch {
        return false
      }
    },
    { expected: "an http or https URL of letters, digits and -._~:/?=[]" },
  ),
)

const Started = Schema.Struct({
  deviceCode: Schema.String,
  // Printed for the person to compare: letters and dashes only, never a terminal's control sequence.
  userCode: Schema.String.check(Schema.isPattern(/^[A-Z0-9-]{1,32}$/)),
  verificationUrl: PageUrl,
  expiresIn: Schema.Number,
  interval: Schema.Number,
})
export type Started = typeof Started.Type

export const IssuedKey = Schema.Struct({
  key: Schema.String,
  name: Schema.String,
  scope: Schema.String,
  expiresAt: Schema.NullOr(Schema.String),
  projectSlug: Schema.String,
})
export type IssuedKey = typeof IssuedKey.Type

/** RFC 8628 §3.5: how much slower to poll after each `slow_down`. */
const SLOW_DOWN_SECONDS = 5

export const startCliLogin = (url: string, name: string | undefined) =>
  request({ url, token: "", service: "secrets" }, "POST", "/api/cli-logins", {
    anonymous: true,
    body: name === undefined ? {} : { name },
  }).pipe(Effect.flatMap(decodeAnswer(Started)))

const poll = (url: string, deviceCode: string) =>
  request({ url, token: "" }, "POST", "/api/cli-logins/token", { anonymous: true, body: { deviceCode } }).pipe(
    Effect.flatMap(decodeAnswer(IssuedKey)),
  )

/** Polls until the login is decided: the key, or a failure that says why there is none. */
export const awaitCliLogin = (url: string, started: Started): Effect.Effect<IssuedKey, CofferFailure> =>
  Effect.gen(function* () {
    let interval = started.interval
    while (true) {
      yield* Effect.sleep(`${interval} seconds`)
      const answer = yield* Effect.result(poll(url, started.deviceCode))
      if (answer._tag === "Success") return answer.success
      const failure = answer.failure
      if (failure.code === "authorization_pending") continue
      if (failure.code === "slow_down") {
        interval += SLOW_DOWN_SECONDS
        continue
      }
      if (failure.code === "access_denied") return yield* refused("the login was denied in the browser")
      if (failure.code === "expired_token") {
        return yield* authFailure("the login expired before it was approved: run `coffer login --web` again")
      }
      return yield* failure
    }
  })
