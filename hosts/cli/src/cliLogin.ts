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

const Started = Schema.Struct({
  deviceCode: Schema.String,
  userCode: Schema.String,
  verificationUrl: Schema.String,
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
