/**
 * A progress bar on stderr for long runs of requests (`push`, `import`), drawn only when stderr is a terminal
 * and there is enough work to be worth watching; otherwise nothing is drawn, so logs and pipes stay clean.
 */
import * as Effect from "effect/Effect"

/** Below this many requests the bar would only flicker. */
export const PROGRESS_THRESHOLD = 50
const WIDTH = 30

export interface Progress {
  readonly tick: Effect.Effect<void>
  readonly done: Effect.Effect<void>
}

export const makeProgress = (label: string, total: number): Progress => {
  const stream = process.stderr
  if (stream.isTTY !== true || total < PROGRESS_THRESHOLD) return { tick: Effect.void, done: Effect.void }
  let count = 0
  let drawn = -1
  const draw = () => {
    const filled = Math.round((count / total) * WIDTH)
    if (filled === drawn && count !== total) return
    drawn = filled
    stream.write(`\r${label} [${"#".repeat(filled)}${" ".repeat(WIDTH - filled)}] ${count}/${total}`)
  }
  return {
    tick: Effect.sync(() => {
      count += 1
      draw()
    }),
    done: Effect.sync(() => stream.write("\n")),
  }
}
