/**
 * Asking before a command destroys something (`secrets delete`, `environments delete`, `secrets push --prune`
 * when it would delete), as careful CLIs do
 * (`doppler secrets delete` asks unless `--yes`). `--yes` goes ahead at once; otherwise the question is put only
 * where it is seen and answered, a terminal on stdin and stderr. Anywhere else (a script, a pipe, CI) nobody can
 * answer, so the command refuses rather than wait for an answer that never comes or delete unasked.
 */
import * as Effect from "effect/Effect"
import { usage } from "./failure.js"
import { readLine, stdinIsTerminal } from "./stdin.js"

/** What a destructive command does before it acts. */
export type Confirmation = "proceed" | "ask" | "refuse"

export const confirmation = (input: { readonly yes: boolean; readonly interactive: boolean }): Confirmation =>
  input.yes ? "proceed" : input.interactive ? "ask" : "refuse"

/** Whether the question can be put and answered here: on both ends a terminal. */
export const isInteractive = () => stdinIsTerminal() && process.stderr.isTTY === true

/** `y` or `yes`, in any case: anything else, an empty answer included, is no (the `[y/N]` default). */
export const isYes = (answer: string) => /^(y|yes)$/i.test(answer.trim())

/** Keys named in a question at most; a longer list names the first few and counts the rest. */
const NAMED_AT_MOST = 5

/**
 * `A`, or `3 secrets (A, B, C)`, or `9 secrets (A, B, C, D and 5 more)`: one line however many keys are given,
 * never `and 1 more` (that line would be as long as naming it).
 */
export const describeKeys = (keys: ReadonlyArray<string>) => {
  if (keys.length === 1) return keys[0] ?? ""
  const named =
    keys.length <= NAMED_AT_MOST
      ? keys.join(", ")
      : `${keys.slice(0, NAMED_AT_MOST - 1).join(", ")} and ${keys.length - (NAMED_AT_MOST - 1)} more`
  return `${keys.length} secrets (${named})`
}

/** `Delete A from app/staging? [y/N] `, or `Delete 3 secrets (A, B, C) from app/staging? [y/N] `. */
export const deleteQuestion = (keys: ReadonlyArray<string>, place: string) =>
  `Delete ${describeKeys(keys)} from ${place}? [y/N] `

/**
 * Goes on only when `--yes` was given or the terminal's answer is yes; otherwise fails as a usage error (exit 1)
 * saying nothing was changed, or, with nobody to ask, with `refusal`, which should name `--yes`.
 */
export const confirmYesNo = (input: {
  readonly yes: boolean
  readonly question: string
  readonly refusal: string
  /** What a "no" leaves undone; `nothing was deleted` unless the command would have done more. */
  readonly untouched?: string
}) =>
  Effect.gen(function* () {
    const decision = confirmation({ yes: input.yes, interactive: isInteractive() })
    if (decision === "proceed") return
    if (decision === "refuse") return yield* usage(input.refusal)
    const answer = yield* readLine(input.question)
    if (!isYes(answer)) return yield* usage(`not confirmed: ${input.untouched ?? "nothing was deleted"}`)
  })
