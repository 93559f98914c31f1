import type { RequestLine } from "@coffer/http"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import { describe, expect, it } from "vitest"
import { jsonLine, makeRequestLines, structuredLine } from "./logging.js"

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

  it("writes a message logged with fields as one string, the fields beside it (the README's one shape)", async () => {
    const lines = await bothWays(
      Effect.gen(function* () {
        yield* Effect.logWarning("Postgres: a connection in use failed", { error: "read ECONNRESET", message: "no" })
        yield* Effect.logInfo("applied", 3, "migrations")
      }).pipe(Effect.annotateLogs({ service: "secrets" })),
    )
    expect(lines.map(({ general }) => JSON.parse(general))).toEqual([
      {
        time: expect.any(String),
        level: "WARN",
        message: "Postgres: a connection in use failed",
        error: "read ECONNRESET",
        service: "secrets",
      },
      { time: expect.any(String), level: "INFO", message: "applied 3 migrations", service: "secrets" },
    ])
    expect(JSON.parse(lines[1]!.fast)).toEqual(JSON.parse(lines[1]!.general))
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

/** What `jsonLine` writes for a request's line: the line's fields as annotations after the runtime's. */
const throughLoggers = async (line: RequestLine, annotations: Record<string, unknown>) => {
  let written: { text: string; millis: number } | undefined
  const capture = Logger.make((options) => {
    written = { text: jsonLine.log(options), millis: options.date.getTime() }
  })
  await Effect.runPromise(
    Effect.logInfo(line.message).pipe(
      Effect.annotateLogs({ ...annotations, ...line.fields }),
      Effect.provide(Logger.layer([capture])),
    ),
  )
  return written!
}

const requestLine = (fields: Partial<RequestLine["fields"]> = {}): RequestLine => ({
  level: "Info",
  message: `${fields.method ?? "GET"} ${fields.route ?? "/api/:platform/:version"} ${fields.status ?? 200}`,
  fields: {
    requestId: "4fcc91af-9061-46ab-bcf0-119603785c44",
    method: "GET",
    route: "/api/:platform/:version",
    status: 200,
    durationMs: 1.83,
    ...fields,
  },
  cause: undefined,
})

describe("request lines made as text", () => {
  it("are the lines the JSON logger writes, byte for byte", async () => {
    const lines = makeRequestLines()
    const service = { service: "schemas" }
    const cases = [
      requestLine(),
      requestLine({ durationMs: 0 }),
      requestLine({ status: 404, durationMs: 12 }),
      requestLine({ method: "POST", route: "/api/projects/:slug/secrets", status: 201, traceId: "ab12" }),
      requestLine({ requestId: "client_given-id=" }),
      // Nothing a client sends reaches a line unchecked, but the writer escapes what it is given all the same.
      requestLine({ requestId: 'odd "id"\n', route: '/odd/"route"' }),
    ]
    for (const line of cases) {
      for (let twice = 0; twice < 2; twice++) {
        const expected = await throughLoggers(line, service)
        expect(lines(line, service, expected.millis)).toBe(expected.text)
      }
    }
  })

  it("leave annotations that are not plain to the loggers", () => {
    const lines = makeRequestLines()
    expect(lines(requestLine(), { service: "schemas", key: Redacted.make("s3cret") }, Date.now())).toBeUndefined()
    expect(lines(requestLine(), { service: "schemas" }, Date.now())).toContain('"service":"schemas"')
  })
})
