/**
 * Running the command of `coffer secrets run`: the child inherits the terminal and gets the environment it is
 * given; SIGINT, SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 sent to `coffer` are passed on to it, and `coffer` waits
 * for it either way.
 * The outcome is the child's exit code, or 128 + the signal's number when a signal ended it, as shells report.
 * A command that cannot be started at all answers 127 (not found) or 126 (not runnable), as shells do too.
 *
 * Interrupting the run (`--watch` restarting the command) asks the child and every process below it to end with
 * SIGTERM (`./processTree.ts`: a wrapper such as `sh -c` may not pass the signal on), sends SIGKILL to those still
 * there after `STOP_GRACE_MS`, and completes only once they have ended: a restarted server must find its port free.
 */
import { spawn } from "node:child_process"
import { constants } from "node:os"
import * as Effect from "effect/Effect"
import { note } from "./output.js"
import { descendantsOf, exists, signalEach } from "./processTree.js"

export const FORWARDED_SIGNALS: ReadonlyArray<NodeJS.Signals> = ["SIGINT", "SIGTERM", "SIGHUP"]

/**
 * A program's own signals (reopen the logs, reload), passed on as well but asking no end. Left to Node, SIGUSR1
 * would open its debugger in `coffer` instead, and SIGUSR2 end `coffer` at once, leaving the child behind. Windows
 * has neither.
 */
export const PASSED_SIGNALS: ReadonlyArray<NodeJS.Signals> = process.platform === "win32" ? [] : ["SIGUSR1", "SIGUSR2"]

/** How long a child asked to end may take before it is killed (Docker's and systemd's stop grace is 10 s). */
export const STOP_GRACE_MS = 10_000

/** The exit status a shell would report for a child that ended with `code` or `signal`. */
export const exitStatus = (code: number | null, signal: NodeJS.Signals | null): number => {
  if (code !== null) return code
  const number = signal === null ? undefined : constants.signals[signal]
  return 128 + (number ?? 0)
}

/** Why a command could not start, in a shell's words rather than an errno code alone. */
const startFailure = (error: NodeJS.ErrnoException) => {
  if (error.code === "ENOENT") return "command not found (ENOENT: is it on PATH?)"
  if (error.code === "EACCES") return "permission denied (EACCES: is it an executable file?)"
  if (error.code === "E2BIG")
    return "its arguments and environment, secrets included, are more than the system lets a program start with (E2BIG): pass fewer with --only"
  if (error.code === "ENAMETOOLONG") return "its name is longer than the system allows (ENAMETOOLONG)"
  return error.code ?? error.message
}

/**
 * What `--watch` holds between two runs of its command. While it stops one run and starts the next, no child is
 * there to pass a signal on to; left to Node's default action, SIGINT, SIGTERM or SIGHUP would end `coffer` at once,
 * without waiting for the run it is stopping (and what that run started) to end. Held here instead, beside the
 * forwarding a run does: `received` is the first signal of the watch, and once there is one no next run is started.
 * A signal asks for the end, whether it came between runs or to a run that went on after it.
 */
export const heldSignals = Effect.acquireRelease(
  Effect.sync(() => {
    let first: NodeJS.Signals | undefined
    const hold = (signal: NodeJS.Signals) => {
      first ??= signal
    }
    // Between two runs there is nobody to pass these on to, and Node's own action would be worse than none.
    const ignore = () => {}
    for (const signal of FORWARDED_SIGNALS) process.on(signal, hold)
    for (const signal of PASSED_SIGNALS) process.on(signal, ignore)
    return { hold, ignore, received: () => first }
  }),
  ({ hold, ignore }) =>
    Effect.sync(() => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, hold)
      for (const signal of PASSED_SIGNALS) process.off(signal, ignore)
    }),
)

export const runChild = (
  command: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>,
): Effect.Effect<number> =>
  Effect.callback<number>((resume) => {
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(command, [...args], { stdio: "inherit", env: env as NodeJS.ProcessEnv })
    } catch (error) {
      // Node reports most start failures as an "error" event, but throws some (E2BIG: the environment with the
      // secrets is too large; ENAMETOOLONG) at once: still a command that could not be started, not a crash.
      return resume(Effect.as(note(`cannot run ${command}: ${startFailure(error as NodeJS.ErrnoException)}`), 126))
    }
    const forward = (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    }
    const passed = [...FORWARDED_SIGNALS, ...PASSED_SIGNALS]
    for (const signal of passed) process.on(signal, forward)
    let settled = false
    const stopForwarding = () => {
      for (const signal of passed) process.off(signal, forward)
    }
    // Node may report a child that never started with both "error" and "exit"; the first one counts.
    const settle = (outcome: Effect.Effect<number>) => {
      if (settled) return
      settled = true
      stopForwarding()
      resume(outcome)
    }
    child.once("error", (error: NodeJS.ErrnoException) => {
      const status = error.code === "ENOENT" ? 127 : 126
      settle(Effect.as(note(`cannot run ${command}: ${startFailure(error)}`), status))
    })
    child.once("exit", (code, signal) => settle(Effect.succeed(exitStatus(code, signal))))
    return Effect.callback<void>((ended) => {
      stopForwarding()
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return ended(Effect.void)
      // Read before the signal: a process whose parent has ended belongs to init and no longer names it.
      const below = descendantsOf(child.pid)
      let childEnded = false
      let killed = false
      let done = false
      const check = () => {
        if (done || !childEnded || (!killed && below.some(exists))) return
        done = true
        clearTimeout(kill)
        clearInterval(watch)
        ended(Effect.void)
      }
      const kill = setTimeout(() => {
        killed = true
        forward("SIGKILL")
        signalEach(below, "SIGKILL")
        check()
      }, STOP_GRACE_MS)
      // Only processes below the child need looking at: the child's own end is an event.
      const watch = below.length === 0 ? undefined : setInterval(check, 50)
      child.once("exit", () => {
        childEnded = true
        check()
      })
      forward("SIGTERM")
      signalEach(below, "SIGTERM")
    })
  })
