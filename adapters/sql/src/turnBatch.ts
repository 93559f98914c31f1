/**
 * The calls of one turn of the event loop, run as one (issue 10). Under load a turn holds many requests, each
 * about to send the same statement with its own values; one statement for all of them costs the database one
 * commit and the host one round trip instead of one each. On Postgres that is what an audited read or a write of
 * a secret costs most: the commit of its audit record, and the wake-up of the backend that runs it.
 *
 * The first call of a turn sets the batch going when the turn ends (`setImmediate`, after every request the turn
 * read has made its call); each call gets its own answer, in its own place. When the batch fails, nothing of it
 * took effect (it is one statement), so each call of a batch of several runs again alone and gets its own answer
 * or error: one call's bad value (an environment deleted meanwhile) fails that call only. A failure that says the
 * store is out of reach fails them all at once instead.
 *
 * A batch runs with the services of its turn's first call (a call run alone, with its own): what it counts goes
 * to the caller's runtime (each service's metrics registry), not to a default one.
 */
import { StoreUnavailable } from "@coffer/kernel"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"

/** Whether the batch failed because the store is out of reach, which running each call alone would not change. */
const unreachable = <A, E>(exit: Exit.Exit<A, E>) => {
  const error = Exit.findError(exit)
  return Result.isSuccess(error) && error.success instanceof StoreUnavailable
}

interface Call<I, O, E> {
  readonly input: I
  readonly context: Context.Context<never>
  readonly resume: (effect: Effect.Effect<O, E>) => void
}

/**
 * `call(input)` joins the turn's batch, which `runAll` runs with every input of the turn, in order, answering one
 * output for each.
 */
export const turnBatch = <I, O, E>(
  runAll: (inputs: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E>,
): ((input: I) => Effect.Effect<O, E>) => {
  let calls: Array<Call<I, O, E>> = []

  const runAlone = ({ input, context, resume }: Call<I, O, E>) =>
    Effect.runCallbackWith(context)(runAll([input]), {
      onExit: (exit) => resume(Exit.isSuccess(exit) ? Effect.succeed(exit.value[0]!) : Effect.failCause(exit.cause)),
    })

  const send = () => {
    const turn = calls
    calls = []
    Effect.runCallbackWith(turn[0]!.context)(runAll(turn.map((call) => call.input)), {
      onExit: (exit) => {
        if (Exit.isSuccess(exit)) {
          for (const [index, { resume }] of turn.entries()) resume(Effect.succeed(exit.value[index]!))
        } else if (turn.length === 1 || unreachable(exit)) {
          for (const { resume } of turn) resume(Effect.failCause(exit.cause))
        } else {
          for (const call of turn) runAlone(call)
        }
      },
    })
  }

  return (input) =>
    Effect.flatMap(Effect.context<never>(), (context) =>
      Effect.callback<O, E>((resume) => {
        if (calls.length === 0) setImmediate(send)
        calls.push({ input, context, resume })
      }),
    )
}
