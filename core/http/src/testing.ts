/**
 * Test fixtures for this package's own tests (not exported): a runtime built from test layers, with a
 * readiness check that can be flipped at will and a logger that records what the apps log.
 */
import { Readiness, Settings, StoreUnavailable } from "@coffer/kernel"
import { Cause, Effect, Layer, Logger, ManagedRuntime, Result } from "effect"

export interface LogEntry {
  readonly level: string
  readonly message: string
  readonly cause: string
}

export const makeTestRuntime = () => {
  let ready = true
  const logs: Array<LogEntry> = []
  const readiness = Layer.succeed(Readiness.Readiness, {
    check: Effect.suspend(() =>
      ready ? Effect.void : Effect.fail(new StoreUnavailable({ store: "database", message: "connection refused" })),
    ),
  })
  const logger = Logger.layer([
    Logger.make((options) => {
      logs.push({
        level: options.logLevel,
        message: [options.message].flat().map(String).join(" "),
        cause: Cause.pretty(options.cause),
      })
    }),
  ])
  const runtime = ManagedRuntime.make(Layer.merge(readiness, logger))
  return {
    runtime,
    logs,
    setReady: (value: boolean) => {
      ready = value
    },
  }
}

/** Settings from an environment, in development unless told otherwise; throws on a bad one. */
export const settingsFrom = (env: Settings.Env = {}): Settings.Settings =>
  Result.getOrThrow(Settings.parse({ COFFER_ENV: "development", ...env }))
