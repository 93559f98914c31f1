/**
 * The `getMany` calls of one turn of the event loop, sent to Redis as one MGET. Under load every token-checked
 * read (and every request with an API key or a cached session) asks for its credential's entry and a generation,
 * a turn holds dozens of such calls, and most of them name the same keys. One command per turn instead of one per
 * call spares ioredis a command object, a key lookup and a reply per call, and Redis a command (issue 10).
 *
 * Each key is asked once, and each call gets the values of its own keys, in its order. The command leaves at the
 * end of the turn (`setImmediate`), when ioredis's auto-pipelining would have sent the calls' own commands; it
 * fails or times out for every call of the turn alike, and each fails with its own `StoreUnavailable`.
 */
import * as Effect from "effect/Effect"

/** Values by position, `null` for a missing key (what ioredis's `mget` answers). */
export type Mget = (keys: Array<string>) => Promise<Array<string | null>>

interface Call<E> {
  readonly keys: ReadonlyArray<string>
  readonly resume: (effect: Effect.Effect<Array<string | undefined>, E>) => void
}

export const makeBatchedMget = <E>(
  mget: Mget,
  failure: (cause: unknown) => E,
): ((keys: ReadonlyArray<string>) => Effect.Effect<Array<string | undefined>, E>) => {
  let calls: Array<Call<E>> = []

  const send = () => {
    const turn = calls
    calls = []
    const positions = new Map<string, number>()
    for (const { keys } of turn) for (const key of keys) if (!positions.has(key)) positions.set(key, positions.size)
    let answer: Promise<Array<string | null>>
    try {
      answer = mget([...positions.keys()])
    } catch (cause) {
      answer = Promise.reject(cause)
    }
    answer.then(
      (values) => {
        for (const { keys, resume } of turn) {
          resume(Effect.succeed(keys.map((key) => values[positions.get(key)!] ?? undefined)))
        }
      },
      (cause: unknown) => {
        for (const { resume } of turn) resume(Effect.fail(failure(cause)))
      },
    )
  }

  return (keys) =>
    keys.length === 0
      ? Effect.succeed([])
      : Effect.callback<Array<string | undefined>, E>((resume) => {
          if (calls.length === 0) setImmediate(send)
          calls.push({ keys, resume })
        })
}
