/**
 * What every request leaves behind, on the shared stack with a real runtime: its one log line (request id, method,
 * route template, status, duration, and the cause of a 5xx, once), its `X-Request-Id`, its count and duration in
 * the runtime's metrics, and a server span that continues the caller's `traceparent` and is the parent of the use
 * case's spans.
 */

import { settingsFrom } from "@coffer/test-kit/http"
import { captureLogs, flippableReadiness } from "@coffer/test-kit/runtime"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Metric from "effect/Metric"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import { afterEach, describe, expect, it } from "vitest"
import { createBaseApp } from "../app/base.js"
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from "./metricsRoute.js"
import { MAX_REQUEST_ID_LENGTH, REQUEST_ID_HEADER } from "./requestId.js"
import { type RequestLine, RequestLineWriter, type WriteRequestLine } from "./requestLog.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const METRICS_TOKEN = "metrics-token-0123456789"

const disposals: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(disposals.splice(0).map((dispose) => dispose()))
})

/** A tracer that keeps every span it makes. */
const recordingTracer = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    },
  })
  return { spans, tracer }
}

const makeApp = (
  options: {
    readonly minimumLevel?: "Info" | "Warn"
    readonly metricsToken?: string
    readonly writer?: WriteRequestLine
  } = {},
) => {
  const capture = captureLogs()
  const recording = recordingTracer()
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      flippableReadiness().layer,
      capture.layer,
      Layer.succeed(Metric.MetricRegistry)(new Map()),
      Layer.succeed(Tracer.Tracer)(recording.tracer),
      Layer.succeed(References.CurrentLogAnnotations)({ service: "test" }),
      Layer.succeed(Metric.CurrentMetricAttributes)({ service: "test" }),
      Layer.succeed(References.MinimumLogLevel)(options.minimumLevel ?? "Info"),
      Layer.succeed(RequestLineWriter)(options.writer),
    ),
  )
  disposals.push(() => runtime.dispose())
  const settings = {
    ...settingsFrom(),
    metricsToken: options.metricsToken === undefined ? undefined : Redacted.make(options.metricsToken),
  }
  const { app, handle } = createBaseApp({ runtime, settings, publicOrigin: undefined })
  const useCase = Effect.fn("Test.readItem")(function* (id: string) {
    yield* Effect.void.pipe(Effect.withSpan("TestStore.find"))
    return { id }
  })
  app.get("/items/:id", (c) => handle(c, useCase(c.req.param("id"))))
  app.get("/defect", (c) => handle(c, Effect.die(new Error("kaboom: internal detail"))))
  app.get("/file", () => new Response("made outside the context"))
  return { app, runtime, logs: capture.logs, spans: recording.spans }
}

type Logs = ReturnType<typeof makeApp>["logs"]

/** The request lines logged so far, once `count` of them are there (they are written by the runtime's fiber). */
const requestLines = async (logs: Logs, count: number) => {
  const lines = () => logs.filter((entry) => "requestId" in entry.annotations)
  await expect.poll(() => lines().length).toBe(count)
  return lines()
}

describe("request log lines", () => {
  it("say the request id, service, method, route template, status and duration, never the query or path", async () => {
    const { app, logs } = makeApp()
    const response = await app.request("/items/sk-private-name?token=cfs_should-not-be-logged", {
      headers: { [REQUEST_ID_HEADER]: "client-id_42" },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get(REQUEST_ID_HEADER)).toBe("client-id_42")
    const [line] = await requestLines(logs, 1)
    expect(line!.level).toBe("Info")
    expect(line!.message).toBe("GET /items/:id 200")
    expect(line!.annotations).toMatchObject({
      requestId: "client-id_42",
      service: "test",
      method: "GET",
      route: "/items/:id",
      status: 200,
    })
    expect(line!.annotations.durationMs).toBeTypeOf("number")
    expect(JSON.stringify(logs)).not.toMatch(/cfs_should-not-be-logged|sk-private-name/)
  })

  it("make an id when the client's is missing, too long or not a token", async () => {
    const { app, logs } = makeApp()
    const ids = []
    for (const sent of [undefined, "x".repeat(MAX_REQUEST_ID_LENGTH + 1), "two words", 'a"quote']) {
      const response = await app.request("/items/1", {
        headers: sent === undefined ? {} : { [REQUEST_ID_HEADER]: sent },
      })
      ids.push(response.headers.get(REQUEST_ID_HEADER))
    }
    for (const id of ids) expect(id).toMatch(UUID)
    expect(new Set(ids).size).toBe(ids.length)
    const lines = await requestLines(logs, ids.length)
    expect(lines.map((line) => line.annotations.requestId)).toEqual(ids)
  })

  it("name a path no route takes `unmatched`, and a made-up method `OTHER`", async () => {
    const { app, logs } = makeApp()
    expect((await app.request("/nowhere/at/all")).status).toBe(404)
    await app.request("/items/1", { method: "BREW" })
    const lines = await requestLines(logs, 2)
    expect(lines.map((line) => [line.annotations.method, line.annotations.route, line.annotations.status])).toEqual([
      ["GET", "unmatched", 404],
      ["OTHER", "unmatched", 405],
    ])
  })

  it("carry the cause of a 5xx, once, at level Error, and the answer says nothing of it", async () => {
    const { app, logs } = makeApp()
    const response = await app.request("/defect")
    expect(response.status).toBe(500)
    expect(await response.text()).not.toContain("kaboom")
    const [line] = await requestLines(logs, 1)
    expect(line!.level).toBe("Error")
    expect(line!.annotations).toMatchObject({ route: "/defect", status: 500 })
    expect(line!.cause).toContain("kaboom: internal detail")
    expect(logs.filter((entry) => entry.cause.includes("kaboom"))).toHaveLength(1)
  })

  it("are written in order, and the ones still buffered when the runtime is disposed are written first", async () => {
    const { app, runtime, logs } = makeApp()
    for (const id of ["first", "second", "third"])
      await app.request(`/items/${id}`, { headers: { [REQUEST_ID_HEADER]: id } })
    await runtime.dispose()
    const lines = logs.filter((entry) => "requestId" in entry.annotations)
    expect(lines.map((line) => line.annotations.requestId)).toEqual(["first", "second", "third"])
  })

  it("go to the host's own writer when it has one, with the runtime's annotations; a 5xx's to the loggers", async () => {
    const written: Array<{ line: RequestLine; annotations: Readonly<Record<string, unknown>> }> = []
    const { app, logs } = makeApp({
      writer: (line, annotations) => {
        written.push({ line, annotations })
        return true
      },
    })
    await app.request("/items/1", { headers: { [REQUEST_ID_HEADER]: "by-writer" } })
    await app.request("/nowhere")
    await app.request("/defect", { headers: { [REQUEST_ID_HEADER]: "by-loggers" } })
    const [failed] = await requestLines(logs, 1)
    expect(failed!.annotations.requestId).toBe("by-loggers")
    expect(failed!.cause).toContain("kaboom")
    expect(written.map(({ line }) => [line.fields.requestId === "by-writer", line.message])).toEqual([
      [true, "GET /items/:id 200"],
      [false, "GET unmatched 404"],
    ])
    expect(written[0]!.annotations).toEqual({ service: "test" })
  })

  it("go to the loggers when the host's writer declines them", async () => {
    const { app, logs } = makeApp({ writer: () => false })
    await app.request("/items/1", { headers: { [REQUEST_ID_HEADER]: "declined" } })
    const [line] = await requestLines(logs, 1)
    expect(line!.annotations.requestId).toBe("declined")
  })

  it("follow the runtime's level: above Info only failures are written", async () => {
    const { app, logs } = makeApp({ minimumLevel: "Warn" })
    await app.request("/items/1")
    await app.request("/defect")
    const [line] = await requestLines(logs, 1)
    expect(line!.annotations.route).toBe("/defect")
  })
})

describe("X-Request-Id", () => {
  it("is on every response: errors, 404s and responses made outside the context", async () => {
    const { app } = makeApp()
    for (const path of ["/defect", "/nowhere", "/file"]) {
      const response = await app.request(path, { headers: { [REQUEST_ID_HEADER]: "trace-me" } })
      expect(response.headers.get(REQUEST_ID_HEADER)).toBe("trace-me")
    }
  })
})

describe("request metrics", () => {
  it("count requests and their durations by method, route template and status", async () => {
    const { app, runtime } = makeApp()
    await app.request("/items/1")
    await app.request("/items/2")
    await app.request("/nowhere")
    const text = await prometheusText((await runtime.context()) as Context.Context<never>)
    expect(text).toContain('coffer_http_requests_total{service="test",method="GET",route="/items/:id",status="200"} 2')
    expect(text).toContain('coffer_http_requests_total{service="test",method="GET",route="unmatched",status="404"} 1')
    expect(text).toContain("# TYPE coffer_http_request_duration_seconds histogram")
    const series = 'service="test",method="GET",route="/items/:id",status="200"'
    expect(text).toContain(`coffer_http_request_duration_seconds_count{${series}} 2`)
    expect(text).toContain(`coffer_http_request_duration_seconds_bucket{${series},le="+Inf"} 2`)
    // Buckets are cumulative: each holds at least as many as the one below it.
    const buckets = [...text.matchAll(new RegExp(`_bucket\\{${series},le="[^"]+"\\} (\\d+)`, "g"))].map((m) =>
      Number(m[1]),
    )
    expect(buckets.length).toBeGreaterThan(5)
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b))
  })
})

describe("GET /metrics", () => {
  it("is not served without a token: 404 like any unknown path", async () => {
    const { app } = makeApp()
    const response = await app.request("/metrics", { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: "Not found" })
  })

  it("asks for the bearer token and answers Prometheus text with it", async () => {
    const { app } = makeApp({ metricsToken: METRICS_TOKEN })
    for (const authorization of [
      undefined,
      "Bearer wrong-token-0123456789",
      `Basic ${METRICS_TOKEN}`,
      `Bearer ${METRICS_TOKEN}x`,
    ]) {
      const refused = await app.request("/metrics", {
        headers: authorization === undefined ? {} : { Authorization: authorization },
      })
      expect(refused.status).toBe(401)
      expect(refused.headers.get("WWW-Authenticate")).toBe("Bearer")
      expect(await refused.text()).not.toContain("coffer_http")
    }
    await app.request("/items/1")
    const response = await app.request("/metrics", { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
    expect(response.status).toBe(200)
    expect(response.headers.get("Content-Type")).toBe(PROMETHEUS_CONTENT_TYPE)
    expect(await response.text()).toContain('route="/items/:id",status="200"} 1')
  })
})

describe("request spans", () => {
  const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
  const CALLER_SPAN_ID = "00f067aa0ba902b7"

  it("continue the caller's traceparent, and parent the use case, which parents its store calls", async () => {
    const { app, spans } = makeApp()
    const response = await app.request("/items/7", {
      headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` },
    })
    expect(response.status).toBe(200)
    const server = spans.find((span) => span.kind === "server")!
    expect(server.name).toBe("GET /items/:id")
    expect(server.traceId).toBe(TRACE_ID)
    expect(server.parent._tag === "Some" && server.parent.value.spanId).toBe(CALLER_SPAN_ID)
    expect(server.attributes.get("http.route")).toBe("/items/:id")
    expect(server.attributes.get("http.response.status_code")).toBe(200)
    expect(server.status._tag).toBe("Ended")
    const useCase = spans.find((span) => span.name === "Test.readItem")!
    expect(useCase.parent._tag === "Some" && useCase.parent.value.spanId).toBe(server.spanId)
    const store = spans.find((span) => span.name === "TestStore.find")!
    expect(store.parent._tag === "Some" && store.parent.value.spanId).toBe(useCase.spanId)
    expect(new Set([server, useCase, store].map((span) => span.traceId))).toEqual(new Set([TRACE_ID]))
  })

  it("start a new trace without a valid traceparent", async () => {
    const { app, spans } = makeApp()
    await app.request("/items/7", { headers: { traceparent: "00-not-a-trace-01" } })
    const server = spans.find((span) => span.kind === "server")!
    expect(server.parent._tag).toBe("None")
    expect(server.traceId).not.toBe(TRACE_ID)
  })

  it("end with the failure of a 5xx", async () => {
    const { app, spans } = makeApp()
    await app.request("/defect")
    const server = spans.find((span) => span.kind === "server")!
    expect(server.status._tag === "Ended" && server.status.exit._tag).toBe("Failure")
  })
})
