/**
 * A runtime for tests of the apps: a readiness check the test flips, and a logger that records what the apps
 * log (level, message, pretty cause), so a test can assert that a failure was logged and that nothing secret was.
 */
import { Readiness, StoreUnavailable } from "@coffer/kernel"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as References from "effect/References"

export interface LogEntry {
  readonly level: string
  readonly message: string
  readonly cause: string
  /** The log's annotations (a request line's `requestId`, `route`, `status`…). */
  readonly annotations: Readonly<Record<string, unknown>>
}

/** A logger layer that appends every entry to `logs`. */
export const captureLogs = () => {
  const logs: Array<LogEntry> = []
  const layer = Logger.layer([
    Logger.make((options) => {
      logs.push({
        level: options.logLevel,
        message: [options.message].flat().map(String).join(" "),
        cause: Cause.pretty(options.cause),
        annotations: options.fiber.getRef(References.CurrentLogAnnotations),
      })
    }),
  ])
  return { logs, layer }
}

/** A readiness check that fails as an unreachable database does while `setReady(false)`. */
export const flippableReadiness = () => {
  let ready = true
  const layer = Layer.succeed(Readiness.Readiness, {
    check: Effect.suspend(() =>
      ready ? Effect.void : Effect.fail(new StoreUnavailable({ store: "database", message: "connection refused" })),
    ),
  })
  return {
    layer,
    setReady: (value: boolean) => {
      ready = value
    },
  }
}

/** Readiness and a log capture, nothing else. */
export const makeTestRuntime = () => {
  const readiness = flippableReadiness()
  const capture = captureLogs()
  const runtime = ManagedRuntime.make(Layer.merge(readiness.layer, capture.layer))
  return { runtime, logs: capture.logs, setReady: readiness.setReady }
}
