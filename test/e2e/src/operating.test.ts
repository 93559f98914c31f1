/**
 * Operating a real host (README "Operating Coffer"), on every host `hosts` lists: a JSON log line per request,
 * `/metrics` behind its token on each service's port, and traces exported over OTLP/HTTP to a small receiver in
 * this test, which checks the spans of one request and their parent links: request → use case → store call.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { type Host, hosts, start } from "./host.js"

const METRICS_TOKEN = "e2e-metrics-token-0123456789"
const TRACE_ID = "5af7183fc1d2e3a4b5c6d7e8f9a0b1c2"
const CALLER_SPAN_ID = "a1b2c3d4e5f60718"

const running: Array<Host> = []
const servers: Array<Server> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((host) => host.stop("SIGKILL")))
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))))
})

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
}

/** An OTLP/HTTP JSON receiver: keeps every span posted to `/v1/traces`, with its resource's service name. */
const otlpReceiver = async () => {
  const spans: Array<OtlpSpan & { readonly service: string }> = []
  const server = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk) => {
      body += chunk
    })
    request.on("end", () => {
      if (request.url === "/v1/traces") {
        const data = JSON.parse(body) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }
            scopeSpans: Array<{ spans: Array<OtlpSpan> }>
          }>
        }
        for (const resource of data.resourceSpans) {
          const service =
            resource.resource.attributes.find((attribute) => attribute.key === "service.name")?.value.stringValue ?? ""
          for (const scope of resource.scopeSpans) for (const span of scope.spans) spans.push({ ...span, service })
        }
      }
      response.writeHead(200, { "Content-Type": "application/json" }).end("{}")
    })
  })
  servers.push(server)
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return { spans, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** The JSON lines the host printed. */
const jsonLines = (output: string): Array<Record<string, unknown>> =>
  output.split("\n").flatMap((line) => {
    if (!line.startsWith("{")) return []
    return [JSON.parse(line) as Record<string, unknown>]
  })

describe.each(hosts)("operating coffer on %s", (kind) => {
  it("says what happens at start in the order it happens: migrations and warnings, then the listening lines", async () => {
    const host = await start({
      host: kind,
      // A fresh database (the migrations run), and development on an address others reach (a warning).
      env: { COFFER_LOG_FORMAT: "json", COFFER_HOST: "0.0.0.0", COFFER_DATABASE_URL: "sqlite::memory:" },
    })
    running.push(host)
    // Read as the host printed it up to its last "listening" line: what a supervisor that waits for it has seen.
    const lines = host.output().split("\n")
    const said = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line))
    const migrated = said(/"message":"migrations applied: 0001_meta, /)
    const warned = said(/"message":"development mode on COFFER_HOST=0\.0\.0\.0/)
    const listening = [said(/^coffer schemas listening on /), said(/^coffer secrets listening on /)]
    expect(Math.min(migrated, warned, ...listening), host.output()).toBeGreaterThanOrEqual(0)
    expect(migrated).toBeLessThan(warned)
    expect(warned).toBeLessThan(Math.min(...listening))
  })

  it("warns when development mode listens where other machines reach it, and only then", async () => {
    const warning = (output: string) =>
      jsonLines(output).find((line) => String(line.message).startsWith("development mode on COFFER_HOST="))
    const open = await start({
      host: kind,
      args: ["serve", "--only", "schemas"],
      env: { COFFER_LOG_FORMAT: "json", COFFER_HOST: "0.0.0.0" },
    })
    running.push(open)
    await expect
      .poll(() => warning(open.output()))
      .toMatchObject({
        level: "WARN",
        message: expect.stringContaining("COFFER_HOST=0.0.0.0, which other machines can reach"),
      })
    const local = await start({ host: kind, args: ["serve", "--only", "schemas"], env: { COFFER_LOG_FORMAT: "json" } })
    running.push(local)
    expect((await fetch(`${local.schemas}/healthz`)).status).toBe(200)
    expect(warning(local.output())).toBeUndefined()
  })

  it("warns when production listens where others reach it with a public origin left at localhost", async () => {
    const warnings = (output: string) =>
      jsonLines(output)
        .filter((line) => line.level === "WARN" && String(line.message).includes("PUBLIC_ORIGIN is unset"))
        .map((line) => String(line.message))
    const production = {
      COFFER_ENV: "production",
      COFFER_MASTER_KEY: Buffer.alloc(32, 7).toString("base64"),
      COFFER_LOG_FORMAT: "json",
      COFFER_HOST: "0.0.0.0",
    }
    const unset = await start({ host: kind, env: production })
    running.push(unset)
    // Schemas without sign-in builds nothing from its origin (its clients are tokens), so only Secrets is named.
    await expect
      .poll(() => warnings(unset.output()))
      .toEqual([
        expect.stringMatching(
          /^COFFER_PUBLIC_ORIGIN is unset on COFFER_HOST=0\.0\.0\.0, which other machines can reach: invite links and the CLI's web login page would point at localhost/,
        ),
      ])
    const set = await start({
      host: kind,
      env: { ...production, COFFER_PUBLIC_ORIGIN: "https://secrets.example.com" },
    })
    running.push(set)
    expect((await fetch(`${set.secrets}/healthz`)).status).toBe(200)
    expect(warnings(set.output())).toEqual([])
  })

  it("logs one JSON line per request and serves each service's metrics behind the token", async () => {
    const host = await start({
      host: kind,
      env: { COFFER_LOG_FORMAT: "json", COFFER_METRICS_TOKEN: METRICS_TOKEN },
    })
    running.push(host)
    // A start that migrated says what it applied, as a log line like any other.
    await expect
      .poll(() => jsonLines(host.output()).find((line) => String(line.message).startsWith("migrations applied:")))
      .toMatchObject({
        level: "INFO",
        message: expect.stringMatching(
          /^migrations applied: 0001_meta, 0002_sessions, .*0015_secrets_data_key_rotations$/,
        ),
      })
    const read = await fetch(`${host.schemas}/api/ios?token=cfs_not-for-logs`, {
      headers: { "X-Request-Id": "e2e-request-1" },
    })
    expect(read.status).toBe(401)
    expect(read.headers.get("X-Request-Id")).toBe("e2e-request-1")
    await expect
      .poll(() => jsonLines(host.output()).find((line) => line.requestId === "e2e-request-1"))
      .toMatchObject({
        level: "INFO",
        service: "schemas",
        method: "GET",
        route: "/api/:platform",
        status: 401,
        durationMs: expect.any(Number),
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      })
    expect(host.output()).not.toContain("cfs_not-for-logs")

    expect((await fetch(`${host.schemas}/metrics`)).status).toBe(401)
    const wrong = await fetch(`${host.schemas}/metrics`, { headers: { Authorization: "Bearer not-the-token-at-all" } })
    expect(wrong.status).toBe(401)
    const authorization = { Authorization: `Bearer ${METRICS_TOKEN}` }
    const schemas = await (await fetch(`${host.schemas}/metrics`, { headers: authorization })).text()
    expect(schemas).toContain(
      'coffer_http_requests_total{service="schemas",method="GET",route="/api/:platform",status="401"} 1',
    )
    expect(schemas).toMatch(/^coffer_process_resident_memory_bytes\{service="schemas"\} \d+$/m)
    expect(schemas).toMatch(/^coffer_process_event_loop_delay_seconds\{service="schemas",quantile="0\.99"\} [\d.e-]+$/m)
    // Each port serves its own service's metrics.
    await fetch(`${host.secrets}/healthz`)
    const secrets = await (await fetch(`${host.secrets}/metrics`, { headers: authorization })).text()
    expect(secrets).toContain(
      'coffer_http_requests_total{service="secrets",method="GET",route="/healthz",status="200"} 1',
    )
    expect(secrets).not.toContain('service="schemas"')
    // The process's own gauges on both ports, not only on the first service's.
    expect(secrets).toMatch(/^coffer_process_resident_memory_bytes\{service="secrets"\} \d+$/m)
  })

  it("exports a span per request, use case and store call over OTLP, continuing the caller's trace", async () => {
    const receiver = await otlpReceiver()
    const host = await start({
      host: kind,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "100",
      },
    })
    running.push(host)
    const login = await fetch(`${host.schemas}/api/auth/dev-login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", groups: [] }),
    })
    const cookie = login.headers.getSetCookie()[0]!.split(";")[0]!
    // A signed-in read of a platform: request → Schemas.getPlatform → SchemaStore.findPlatform.
    const response = await fetch(`${host.schemas}/api/ios`, {
      headers: { Cookie: cookie, traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` },
    })
    expect(response.status).toBe(404)
    const byName = (name: string) => receiver.spans.find((span) => span.traceId === TRACE_ID && span.name === name)
    await expect.poll(() => byName("SchemaStore.findPlatform"), { timeout: 10_000 }).toBeDefined()
    const request = byName("GET /api/:platform")!
    const useCase = byName("Schemas.getPlatform")!
    const store = byName("SchemaStore.findPlatform")!
    expect(request.parentSpanId).toBe(CALLER_SPAN_ID)
    expect(useCase.parentSpanId).toBe(request.spanId)
    expect(store.parentSpanId).toBe(useCase.spanId)
    expect(request.service).toBe("coffer-schemas")
  })
})

// Node only, whichever hosts the run covers: the setting is about V8, and Bun's host never reads it.
describe("the young generation of the Node host (COFFER_YOUNG_GENERATION_MB)", () => {
  const youngGeneration = async (env: Record<string, string>) => {
    const host = await start({
      host: "node",
      args: ["serve", "--only", "secrets"],
      env: { COFFER_METRICS_TOKEN: METRICS_TOKEN, ...env },
    })
    running.push(host)
    for (let i = 0; i < 200; i++) await (await fetch(`${host.secrets}/healthz`)).arrayBuffer()
    const metrics = await (
      await fetch(`${host.secrets}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text()
    const match = /^coffer_process_young_generation_bytes\{service="secrets"\} (\d+)$/m.exec(metrics)
    expect(match).not.toBeNull()
    return Number(match![1]) / (1024 * 1024)
  }

  it("stays within the setting once started (16 MB by default), where V8 alone grows it to 32 MB at start", async () => {
    expect(await youngGeneration({})).toBeLessThanOrEqual(16)
    expect(await youngGeneration({ COFFER_YOUNG_GENERATION_MB: "2" })).toBe(2)
    expect(await youngGeneration({ COFFER_YOUNG_GENERATION_MB: "0" })).toBeGreaterThan(16)
  })
})
