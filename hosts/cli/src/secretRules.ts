/**
 * The service's own rules for keys and values (`@coffer/secrets`), checked before the first write of a command
 * that writes several: there is no batch endpoint, so a pair the service refuses halfway would leave the earlier
 * ones written and the later ones not, and running the command again would stop at the same pair.
 */
import { parseSecretKey, parseSecretValue } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { usage } from "./failure.js"

/** Fails with the first pair the service would refuse, naming its key (never its value). */
export const checkWritable = (pairs: Iterable<readonly [key: string, value: string]>) =>
  Effect.gen(function* () {
    for (const [key, value] of pairs) {
      const refusal = Result.flatMap(parseSecretKey(key), () => parseSecretValue(value))
      if (Result.isFailure(refusal)) return yield* usage(`${key}: ${refusal.failure.message}; nothing was written`)
    }
  })
