/**
 * The host contract of DESIGN.md, checked against the built `coffer` command as an operator runs it, on every
 * host `hosts` lists (Node, and Bun's `coffer-bun`).
 */
import { existsSync, readFileSync, statSync } from "node:fs"
import http from "node:http"
import { connect } from "node:net"
import { join } from "node:path"
import { createPostgresDatabase, hasPostgres, hasRedis, redisUrl, startProxyFor } from "@coffer/contract"
import { Redis } from "ioredis"
import { afterEach, describe, expect, it } from "vitest"
import { freshDirectory, type Host, hosts, run, start } from "./host.js"

/** Whether the Redis of the tests answers (skipped with a message otherwise; under CI=true, a failure). */
const redisUp = await hasRedis()

const running: Host[] = []
const started = async (...args: Parameters<typeof start>) => {
  const host = await start(...args)
  running.push(host)
  return host
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((host) => host.stop("SIGKILL")))
})

const json = async (response: Response) => ({ status: response.status, body: await response.json() })

/**
 * Writes `bytes` to the service at `base` on a connection of their own and resolves with all it answered once the
 * connection closed. `halfClose` ends the sending side after them, so a server that keeps connections alive closes
 * this one once it has answered.
 */
const exchange = (base: string, bytes: string, { halfClose = false } = {}) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(base).port), "127.0.0.1")
    let answer = ""
    socket.on("data", (chunk) => {
      answer += chunk
    })
    socket.on("close", () => resolve(answer))
    socket.on("error", reject)
    if (halfClose) socket.end(bytes)
    else socket.write(bytes)
  })

describe.each(hosts)("coffer serve on %s", (kind) => {
  it("starts both services on free ports, prints one line each, and answers", async () => {
    const host = await started({ host: kind })
    expect(host.output()).toMatch(/^coffer schemas listening on http:\/\/127\.0\.0\.1:\d+$/m)
    expect(host.output()).toMatch(/^coffer secrets listening on http:\/\/127\.0\.0\.1:\d+$/m)
    expect(host.schemas).not.toBe(host.secrets)

    const health = await fetch(`${host.secrets}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.text()).toBe("ok")
    const ready = await fetch(`${host.secrets}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.text()).toBe("ok")

    const instance = await json(await fetch(`${host.secrets}/api/instance`))
    expect(instance).toEqual({
      status: 200,
      body: { name: "coffer-secrets", version: expect.any(String), signIn: { oidc: null, development: true } },
    })
    const schemasInstance = await json(await fetch(`${host.schemas}/api/_ui/v1/instance`))
    expect(schemasInstance.status).toBe(200)
    expect(schemasInstance.body).toMatchObject({ name: "coffer-schemas", interfaceVersion: "1.0.0" })
  })

  it("answers unknown paths with a 404 JSON error that is never cached", async () => {
    // Without the web app, which otherwise answers every non-API path (web/serving.test.ts).
    const host = await started({ host: kind, env: { COFFER_WEB: "off" } })
    for (const base of [host.schemas, host.secrets]) {
      const response = await fetch(`${base}/nothing/here`)
      expect(response.status).toBe(404)
      expect(response.headers.get("cache-control")).toBe("no-store")
      expect(response.headers.get("content-type")).toMatch(/^application\/json/)
      expect(await response.json()).toEqual({ error: expect.any(String) })
    }
  })

  it("answers a Host header that makes no URL with a 400 JSON error, whatever the path, and closes", async () => {
    // With the web app, which a misrouted API path would answer.
    const host = await started({ host: kind, env: { COFFER_WEB: "on" } })
    // A cookie that names no session: the failed credential is counted against the client's address.
    const send = (target: string, hostHeader: string) =>
      exchange(
        host.secrets!,
        `GET ${target} HTTP/1.1\r\nHost: ${hostHeader}\r\nCookie: coffer_secrets_session=x\r\n\r\n`,
        // Left open by the client: the answer comes whole only when the server closes the connection.
        { halfClose: false },
      )
    for (const hostHeader of ["[::zz", "a:99999", "a/api/projects", "a#b", "user@a"]) {
      for (const target of ["/api/projects", "/api/instance"]) {
        const answer = await send(target, hostHeader)
        const [head, body] = answer.split("\r\n\r\n")
        expect([hostHeader, target, head!.split("\r\n")[0]]).toEqual([hostHeader, target, "HTTP/1.1 400 Bad Request"])
        expect(head).toMatch(/^content-type: application\/json/im)
        expect(head).toMatch(/^cache-control: no-store/im)
        expect(head).toMatch(/^connection: close/im)
        // Whole or chunked, the body is one JSON object.
        const json = body!.slice(body!.indexOf("{"), body!.lastIndexOf("}") + 1)
        expect(JSON.parse(json)).toEqual({ error: "The request's target and Host header do not make a valid URL" })
      }
    }
  })

  it("answers an oversized body with a readable 413, even to a client that sends all of it", async () => {
    const host = await started({ host: kind })
    // fetch writes the whole body before it reads the answer: a server that answered early and then closed
    // would hand it a connection reset instead of the 413.
    const body = new Uint8Array(12 * 1024 * 1024).fill(97)
    for (const base of [host.secrets, host.schemas]) {
      for (let attempt = 0; attempt < 5; attempt++) {
        const response = await fetch(`${base}/api/projects`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        })
        expect(response.status).toBe(413)
        expect(await response.json()).toEqual({ error: expect.stringMatching(/1 MiB/) })
      }
    }
  })

  it("keeps a connection usable after a 413, for a declared length and for a chunked body", async () => {
    const host = await started({ host: kind })
    // One kept-alive socket for every request, so the request after a 413 goes down the same connection.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const send = (path: string, body?: Buffer, chunked = false) =>
      new Promise<number | undefined>((resolve, reject) => {
        const headers = body === undefined ? {} : { "content-type": "application/json" }
        const request = http.request(`${host.secrets}${path}`, { method: body ? "POST" : "GET", agent, headers }, (r) =>
          r.resume().on("end", () => resolve(r.statusCode)),
        )
        request.on("error", reject)
        if (body !== undefined && !chunked) request.setHeader("content-length", body.length)
        for (let at = 0; body !== undefined && at < body.length; at += 64 * 1024)
          request.write(body.subarray(at, at + 64 * 1024))
        request.end()
      })
    try {
      for (const chunked of [false, true]) {
        for (let attempt = 0; attempt < 3; attempt++) {
          expect(await send("/api/projects", Buffer.alloc(1_100_000, 97), chunked)).toBe(413)
          expect(await send("/healthz")).toBe(200)
          expect(await send("/healthz")).toBe(200)
        }
      }
    } finally {
      agent.destroy()
    }
  })

  it("cuts a request whose body stops arriving after COFFER_REQUEST_TIMEOUT_SECONDS, and stores nothing", async () => {
    const host = await started({ host: kind, env: { COFFER_REQUEST_TIMEOUT_SECONDS: "1" } })
    const login = await fetch(`${host.secrets}/api/auth/dev-login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "slow@example.com" }),
    })
    const cookie = login.headers.getSetCookie()[0]!.split(";")[0]!
    const body = JSON.stringify({ name: "Half sent" })
    // The headers promise the whole body; half of it comes, then nothing. Node's default would wait five minutes.
    const answer = await exchange(
      host.secrets!,
      `POST /api/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    )
    expect(answer).toMatch(/^HTTP\/1.1 408 [\s\S]*\r\n\r\n\{"error":"The request was not received in time"\}$/)
    const listed = await exchange(
      host.secrets!,
      `GET /api/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`,
      { halfClose: true },
    )
    expect(listed).toMatch(/^HTTP\/1.1 200 /)
    expect(listed).toMatch(/\{"projects":\[\]\}/)
  })

  it("closes a connection whose body still trickles in after an early refusal, once the request timeout is up", async () => {
    const host = await started({ host: kind, env: { COFFER_REQUEST_TIMEOUT_SECONDS: "1" } })
    const socket = connect(Number(new URL(host.secrets!).port), "127.0.0.1")
    let answer = ""
    socket.on("data", (chunk) => {
      answer += chunk
    })
    socket.on("error", () => undefined)
    const closed = new Promise<true>((resolve) => socket.on("close", () => resolve(true)))
    // No credential, so refused before the body is read; the body is promised whole and comes a byte at a time, as
    // a client holding connections open would send it. Left alone, it would hold this one for as long as it likes.
    socket.write(
      "POST /api/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        "Content-Length: 100000\r\n\r\n{",
    )
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(" ")
    }, 100)
    const ended = await Promise.race([closed, new Promise<false>((resolve) => setTimeout(() => resolve(false), 8_000))])
    clearInterval(trickle)
    socket.destroy()
    expect(answer).toMatch(/^HTTP\/1.1 401 /)
    expect(ended).toBe(true)
  })

  it("runs one service with --only", async () => {
    const host = await started({ host: kind, args: ["serve", "--only", "schemas"] })
    expect(host.schemas).toBeDefined()
    expect(host.secrets).toBeUndefined()
    expect(host.output()).not.toMatch(/secrets listening/)
    // Probed like any other instance.
    for (const probe of ["/healthz", "/readyz"]) {
      const response = await fetch(`${host.schemas}${probe}`)
      expect(response.status).toBe(200)
      expect(await response.text()).toBe("ok")
    }
  })

  it("stops gracefully on SIGTERM with exit code 0", async () => {
    const host = await start({ host: kind })
    expect(await host.stop("SIGTERM")).toBe(0)
    await expect(fetch(`${host.secrets}/healthz`)).rejects.toThrow()
  })

  it("finishes a request in flight before exiting on SIGTERM", async () => {
    const host = await start({ host: kind })
    // A body sent slowly keeps the request open across the signal; it must still be answered.
    const encoder = new TextEncoder()
    let push: ((chunk: string | null) => void) | undefined
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (chunk) => (chunk === null ? controller.close() : controller.enqueue(encoder.encode(chunk)))
      },
    })
    const pending = fetch(`${host.secrets}/api/nothing`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit)
    push?.("{")
    await new Promise((resolve) => setTimeout(resolve, 200))
    const exited = host.stop("SIGTERM")
    await new Promise((resolve) => setTimeout(resolve, 200))
    push?.("}")
    push?.(null)
    const response = await pending
    expect(response.status).toBe(404)
    expect(await exited).toBe(0)
  })

  it("keeps the development master key in .coffer/master.key, private, across restarts", async () => {
    const cwd = freshDirectory()
    const first = await start({ host: kind, cwd })
    await first.stop()
    const file = join(cwd, ".coffer", "master.key")
    const key = readFileSync(file, "utf8").trim()
    expect(Buffer.from(key, "base64")).toHaveLength(32)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(first.output()).not.toContain(key)
    const second = await start({ host: kind, cwd })
    await second.stop()
    expect(readFileSync(file, "utf8").trim()).toBe(key)
  })

  it("refuses a production start without a master key, naming the setting", async () => {
    const result = await run(["serve"], { host: kind, env: { COFFER_ENV: "production" } })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/COFFER_MASTER_KEY/)
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  it("stops on bad settings with one line per setting and no secret echoed", async () => {
    const secret = "not-really-base64-but-secret"
    const result = await run(["serve"], {
      host: kind,
      env: { COFFER_ENV: "production", COFFER_SCHEMAS_PORT: "abc", COFFER_MASTER_KEY: secret, COFFER_RATE_LIMIT: "-1" },
    })
    expect(result.code).toBe(1)
    const lines = result.stderr.trim().split("\n")
    expect(lines).toHaveLength(3)
    expect(lines.some((line) => line.includes("COFFER_SCHEMAS_PORT"))).toBe(true)
    expect(lines.some((line) => line.includes("COFFER_MASTER_KEY"))).toBe(true)
    expect(lines.some((line) => line.includes("COFFER_RATE_LIMIT"))).toBe(true)
    expect(result.stderr).not.toContain(secret)
    expect(result.stdout).not.toMatch(/listening/)
  })

  it("starts in production with a valid master key", async () => {
    const host = await started({
      host: kind,
      env: { COFFER_ENV: "production", COFFER_MASTER_KEY: Buffer.alloc(32, 7).toString("base64") },
    })
    const instance = await json(await fetch(`${host.secrets}/api/instance`))
    expect(instance.body.signIn.development).toBe(false)
  })

  it("reports a port already in use in one line", async () => {
    const host = await started({ host: kind })
    const port = new URL(host.secrets!).port
    const result = await run(["serve", "--only", "secrets"], {
      host: kind,
      env: { COFFER_ENV: "development", COFFER_SECRETS_PORT: port },
    })
    expect(result.code).toBe(1)
    expect(result.stderr.trim().split("\n")).toHaveLength(1)
    expect(result.stderr).toBe(
      `coffer: COFFER_SECRETS_PORT: port ${port} on 127.0.0.1 is in use (by another process, or the other service)\n`,
    )
    // Both services on one port: the second cannot listen, and no "listening" line of the first was printed.
    const both = await run(["serve"], {
      host: kind,
      env: { COFFER_ENV: "development", COFFER_DATABASE_URL: "sqlite::memory:", COFFER_SCHEMAS_PORT: port },
    })
    expect([both.code, both.stdout.includes("listening")]).toEqual([1, false])
    expect(both.stderr).toMatch(/^coffer: COFFER_SCHEMAS_PORT: port \d+ on 127\.0\.0\.1 is in use/)
  })

  it("names COFFER_DATABASE_URL in one line when the database cannot be reached, never its password", async () => {
    const password = "a-password-never-shown"
    const url = `postgres://coffer:${password}@127.0.0.1:1/coffer`
    const key = Buffer.alloc(32, 7).toString("base64")
    // Without Redis the listener for invalidations fails first; with it (here unreachable too: a start does not
    // wait for Redis), the migrations; `migrate` alone, the same.
    for (const [args, redis] of [
      [["serve"], {}],
      [["serve"], { COFFER_REDIS_URL: "redis://127.0.0.1:1" }],
      [["migrate"], {}],
    ] as const) {
      const result = await run(args, {
        host: kind,
        env: { COFFER_ENV: "production", COFFER_MASTER_KEY: key, COFFER_DATABASE_URL: url, ...redis },
      })
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/^coffer: COFFER_DATABASE_URL: .*ECONNREFUSED 127\.0\.0\.1:1\n$/)
      expect(result.stderr + result.stdout).not.toContain(password)
      expect(result.stdout).not.toMatch(/listening/)
    }
  })

  it.runIf(redisUp)(
    "names COFFER_REDIS_URL in one line when its database is no index, or one Redis refuses, never its password",
    async () => {
      const raw = new Redis(redisUrl)
      const [, databases] = (await raw.config("GET", "databases").finally(() => raw.quit())) as [string, string]
      const password = "a-password-never-shown"
      const url = new URL(redisUrl)
      const at = (path: string) => `${url.protocol}//:${password}@${url.host}${path}`
      for (const [redis, line] of [
        [
          at("/abc"),
          'COFFER_REDIS_URL: expected a database index, a non-negative integer (redis://host:6379/0), got the path "/abc"',
        ],
        // Whether the server has the database is known once connected: it refused, and the start stops there.
        [
          `${url.protocol}//${url.host}/${databases}`,
          `COFFER_REDIS_URL: Redis refused database ${databases}, which the URL names (ERR DB index is out of ` +
            "range); name one the server has (its `databases` setting, 16 by default: 0 to 15)",
        ],
      ] as const) {
        const result = await run(["serve"], {
          host: kind,
          env: { COFFER_ENV: "development", COFFER_DATABASE_URL: "sqlite::memory:", COFFER_REDIS_URL: redis },
        })
        expect([result.code, result.stderr]).toEqual([1, `coffer: ${line}\n`])
        expect(result.stdout).not.toMatch(/listening/)
        expect(result.stderr + result.stdout).not.toContain(password)
      }
    },
  )

  it("names COFFER_HOST when it is no address of this machine", async () => {
    const result = await run(["serve"], {
      host: kind,
      env: { COFFER_ENV: "development", COFFER_DATABASE_URL: "sqlite::memory:", COFFER_HOST: "no-such-host.invalid" },
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^coffer: COFFER_HOST: cannot listen on no-such-host\.invalid, which is no address/)
  })
})

describe.each(hosts)("coffer commands on %s", (kind) => {
  it("prints help for the command and each subcommand", async () => {
    for (const [args, pattern] of [
      [["--help"], /Commands:/],
      [["serve", "--help"], /--only schemas\|secrets/],
      [["migrate", "--help"], /pending migration/],
    ] as const) {
      const result = await run(args, { host: kind })
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(pattern)
    }
  })

  it("rejects an unknown command and a bad --only value", async () => {
    const unknown = await run(["frobnicate"], { host: kind })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/unknown command/)
    const only = await run(["serve", "--only", "both"], { host: kind, env: { COFFER_ENV: "development" } })
    expect(only.code).toBe(1)
    expect(only.stderr).toMatch(/--only/)
  })

  it("migrates a fresh database, then finds nothing to do", async () => {
    const cwd = freshDirectory()
    const env = { COFFER_ENV: "development" }
    const first = await run(["migrate"], { host: kind, cwd, env })
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/applied 0001_meta/)
    const second = await run(["migrate"], { host: kind, cwd, env })
    expect(second.code).toBe(0)
    expect(second.stdout).toMatch(/up to date/)
  })

  it("migrates without a master key, which it never reads, and writes none", async () => {
    // A migration job in production needs the database's address only: the key need not travel there too.
    const cwd = freshDirectory()
    const production = await run(["migrate"], { host: kind, cwd, env: { COFFER_ENV: "production" } })
    expect([production.code, production.stderr]).toEqual([0, ""])
    expect(production.stdout).toMatch(/applied 0001_meta/)
    // Nor does development generate one for it; `serve` does, when it needs one.
    const development = await run(["migrate"], { host: kind, cwd, env: { COFFER_ENV: "development" } })
    expect([development.code, development.stdout]).toEqual([0, "coffer: database is up to date\n"])
    expect(existsSync(join(cwd, ".coffer", "master.key"))).toBe(false)
    // A key given is still checked, as every setting is.
    const bad = await run(["migrate"], { host: kind, cwd, env: { COFFER_MASTER_KEY: "not-a-key" } })
    expect([bad.code, bad.stderr]).toEqual([1, "coffer: COFFER_MASTER_KEY: expected base64 of 32 bytes\n"])
  })

  it("lists and links accounts without a master key, which they never read, and writes none", async () => {
    const cwd = freshDirectory()
    const production = await run(["accounts", "list"], { host: kind, cwd, env: { COFFER_ENV: "production" } })
    expect([production.code, production.stderr]).toEqual([0, ""])
    const link = await run(["accounts", "link", "nobody", "https://issuer.example", "sub"], {
      host: kind,
      cwd,
      env: { COFFER_ENV: "production" },
    })
    // Past the settings to the accounts themselves: the account is not there.
    expect(link.code).not.toBe(0)
    expect(link.stderr).not.toMatch(/COFFER_MASTER_KEY/)
    const development = await run(["accounts", "list"], { host: kind, cwd, env: { COFFER_ENV: "development" } })
    expect(development.code).toBe(0)
    expect(existsSync(join(cwd, ".coffer", "master.key"))).toBe(false)
  })
})

describe.runIf(await hasPostgres()).each(hosts)("coffer serve on %s and Postgres", (kind) => {
  const withDatabase = async (use: (url: URL) => Promise<void>) => {
    const database = await createPostgresDatabase("e2e")
    try {
      await use(new URL(database.url))
    } finally {
      await database.drop()
    }
  }

  it("migrates at start and reports readiness; /readyz answers 503 while the database is cut off", async () => {
    await withDatabase(async (url) => {
      const { proxy, url: through } = await startProxyFor(url.toString(), 5432)
      try {
        const host = await started({ host: kind, env: { COFFER_DATABASE_URL: through } })
        expect((await fetch(`${host.secrets}/readyz`)).status).toBe(200)

        proxy.cut()
        const down = await fetch(`${host.secrets}/readyz`)
        expect(down.status).toBe(503)
        expect(await down.json()).toEqual({ error: expect.any(String) })
        // The process survives the outage.
        expect((await fetch(`${host.secrets}/healthz`)).status).toBe(200)

        proxy.restore()
        await expect
          .poll(async () => (await fetch(`${host.secrets}/readyz`)).status, { timeout: 10_000, interval: 200 })
          .toBe(200)
      } finally {
        await proxy.close()
      }
    })
  })
})
