import { Effect, Logger, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { jsonLine, structuredLine } from "./logging.js"

/** Logs `effect`'s lines through both formatters; each entry is one line written by each. */
const bothWays = async (effect: Effect.Effect<void>) => {
  const lines: Array<{ fast: string; general: string }> = []
  const capture = Logger.make((options) => {
    lines.push({ fast: jsonLine.log(options), general: structuredLine.log(options) })
  })
  await Effect.runPromise(effect.pipe(Effect.provide(Logger.layer([capture]))))
  return lines
}

describe("JSON log lines", () => {
  it("writes a request line exactly as Effect's structured formatter does, flat", async () => {
    const [line] = await bothWays(
      Effect.logInfo("GET /api/:platform/:version 200").pipe(
        Effect.annotateLogs({ service: "schemas", requestId: "r-1", status: 200, durationMs: 1.25, cached: true }),
      ),
    )
    expect(JSON.parse(line!.fast)).toEqual(JSON.parse(line!.general))
    expect(JSON.parse(line!.fast)).toMatchObject({
      level: "INFO",
      message: "GET /api/:platform/:version 200",
      service: "schemas",
      requestId: "r-1",
      status: 200,
      durationMs: 1.25,
    })
  })

  it("keeps the general path for causes, objects and redacted values", async () => {
    const lines = await bothWays(
      Effect.gen(function* () {
        yield* Effect.logError("failed", new Error("kaboom"))
        yield* Effect.logInfo({ nested: { a: 1 } })
        yield* Effect.logInfo("with a secret").pipe(Effect.annotateLogs({ key: Redacted.make("s3cret") }))
        yield* Effect.logInfo("not a number").pipe(Effect.annotateLogs({ ratio: Number.NaN }))
      }),
    )
    expect(lines).toHaveLength(4)
    for (const { fast, general } of lines) expect(fast).toBe(general)
    expect(lines.map(({ fast }) => fast).join("\n")).not.toContain("s3cret")
    expect(lines[0]!.fast).toContain("kaboom")
  })
})
