/**
 * The Bun listener, on Bun: the test runs on Node and drives `../test/listenFixture.ts` in a Bun child process
 * (from source, through the `@coffer/source` condition), because `Bun.serve` exists only there. What the host's
 * e2e suite cannot reach is checked here: the client address, a handler slower than Bun's default idle timeout,
 * the grace period running out, and a taken port refused even when Bun holds it (Bun binds with SO_REUSEPORT
 * unless told not to).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { readFileSync, realpathSync } from "node:fs"
import { connect } from "node:net"
import { dirname, join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"

const packageDirectory = resolve(import.meta.dirname, "..")
const fixture = join(packageDirectory, "test/listenFixture.ts")

/** The executable of the `bun` npm package (its `.bin` shim is a shell script that would not pass signals on). */
const bunExecutable = (() => {
  const manifest = realpathSync(join(packageDirectory, "node_modules/bun/package.json"))
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> }
  return join(dirname(manifest), bin.bun!)
})()

interface Fixture {
  readonly url: string
  readonly port: number
  /** Sends one command line. */
  readonly send: (line: string) => void
  /** The next JSON line printed that has `key`. */
  readonly next: <A = Record<string, unknown>>(key: string) => Promise<A>
  readonly child: ChildProcessWithoutNullStreams
}

const children: Array<ChildProcessWithoutNullStreams> = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL")
})

const startFixture = (env: Readonly<Record<string, string>> = {}): Promise<Fixture> => {
  const child = spawn(bunExecutable, ["--conditions=@coffer/source", fixture], {
    cwd: packageDirectory,
    env: { ...process.env, ...env },
  })
  children.push(child)
  const seen: Array<Record<string, unknown>> = []
  const waiting: Array<{ key: string; resolve: (value: never) => void }> = []
  let buffer = ""
  let errors = ""
  child.stderr.on("data", (chunk) => {
    errors += chunk
  })
  child.stdout.on("data", (chunk) => {
    buffer += chunk
    const lines = buffer.split("\n")
    buffer = lines.pop() ?? ""
    for (const line of lines) seen.push(JSON.parse(line))
    for (const waiter of [...waiting]) {
      const index = seen.findIndex((entry) => waiter.key in entry)
      if (index === -1) continue
      waiting.splice(waiting.indexOf(waiter), 1)
      waiter.resolve(seen.splice(index, 1)[0] as never)
    }
  })
  const next = <A>(key: string) =>
    new Promise<A>((done, fail) => {
      const index = seen.findIndex((entry) => key in entry)
      if (index !== -1) return done(seen.splice(index, 1)[0] as A)
      waiting.push({ key, resolve: done as (value: never) => void })
      child.once("exit", (code) => fail(new Error(`the fixture exited with ${code}:\n${errors}`)))
    })
  return next<{ url: string; port: number }>("url").then(({ url, port }) => ({
    url,
    port,
    send: (line) => child.stdin.write(`${line}\n`),
    next,
    child,
  }))
}

/** A POST whose body stays open until `finish` is called: a request in flight for as long as the test likes. */
const slowRequest = (url: string, path = "/echo") => {
  const encoder = new TextEncoder()
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
    },
  })
  const response = fetch(`${url}${path}`, { method: "POST", body, duplex: "half" } as RequestInit)
  // A request cut by the server may fail before the test looks at it; it is awaited (and checked) later.
  response.catch(() => undefined)
  controller?.enqueue(encoder.encode("in "))
  return {
    response,
    finish: () => {
      controller?.enqueue(encoder.encode("flight"))
      controller?.close()
    },
  }
}

/**
 * `head` written on a connection of its own, then `trickle.bytes` one byte every `trickle.every` ms while the
 * connection is open: what came back and when the server closed it.
 */
const exchange = (port: number, head: string, trickle?: { every: number; bytes: string }) =>
  new Promise<{ text: string; closedAfterMs: number }>((resolve, reject) => {
    const began = Date.now()
    const socket = connect(port, "127.0.0.1")
    let text = ""
    let sent = 0
    const timer =
      trickle === undefined
        ? undefined
        : setInterval(() => {
            if (sent < trickle.bytes.length && !socket.destroyed) socket.write(trickle.bytes[sent++]!)
          }, trickle.every)
    socket.on("data", (chunk) => {
      text += chunk
    })
    socket.on("close", () => {
      clearInterval(timer)
      resolve({ text, closedAfterMs: Date.now() - began })
    })
    // A byte written as the server closes may meet a reset; the answer before it is what counts.
    socket.on("error", (error) => {
      if (text === "") reject(error)
    })
    socket.write(head)
  })

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("bunListener", () => {
  it("reports the port it bound and the client's address", async () => {
    const server = await startFixture()
    expect(server.port).toBeGreaterThan(0)
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`)
    const response = await fetch(`${server.url}/ip`)
    expect(await response.text()).toBe("127.0.0.1")
  })

  it("answers a request whose handler works longer than Bun's 10 s idle timeout", async () => {
    const server = await startFixture()
    // Bun checks timeouts every few seconds, so a 10 s one cuts somewhere before 14 s: 15 s is past it.
    const response = await fetch(`${server.url}/slow/15000`)
    expect(await response.text()).toBe("done")
  }, 30_000)

  it("answers 408 to a body still arriving after the request timeout, stalled or trickled, but not to a handler's work", async () => {
    const server = await startFixture({ REQUEST_TIMEOUT_MS: "1000" })
    // Without the deadline, Bun would cut the stalled body without an answer and never cut the trickled one.
    const stalled = exchange(server.port, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc")
    const trickled = exchange(server.port, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n", {
      every: 200,
      bytes: "a".repeat(40),
    })
    for (const answer of [await stalled, await trickled]) {
      const [head, body] = answer.text.split("\r\n\r\n")
      expect(head!.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout")
      expect(head).toMatch(/^content-type: application\/json$/im)
      expect(head).toMatch(/^cache-control: no-store$/im)
      expect(head).toMatch(/^connection: close$/im)
      expect(JSON.parse(body!)).toEqual({ error: "The request was not received in time" })
      // Answered at the deadline, not at Bun's next look at its idle timeouts (every few seconds).
      expect(answer.closedAfterMs).toBeGreaterThanOrEqual(900)
      expect(answer.closedAfterMs).toBeLessThan(2_500)
    }
    // The body arrives at once, then the handler works for 6 s: past the request timeout and Bun's next look.
    const working = await fetch(`${server.url}/slow/6000`, { method: "POST", body: " with a body" })
    expect(await working.text()).toBe("done with a body")
  }, 30_000)

  it("answers a refusal made before the body came once it has come, or closes at the request timeout", async () => {
    const server = await startFixture({ REQUEST_TIMEOUT_MS: "1000" })
    // Trickled after the refusal: without the deadline, Bun would keep reading it, holding the connection for ever.
    const trickled = await exchange(server.port, "POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n", {
      every: 100,
      bytes: "a".repeat(100),
    })
    const [head, body] = trickled.text.split("\r\n\r\n")
    expect(head!.split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized")
    expect(head).toMatch(/^connection: close$/im)
    expect(JSON.parse(body!)).toEqual({ error: "refused" })
    expect(trickled.closedAfterMs).toBeGreaterThanOrEqual(900)
    expect(trickled.closedAfterMs).toBeLessThan(2_500)
    // Sent whole, as fetch sends it: answered, and the connection carries the next request.
    const whole = "x".repeat(100)
    const twice = await exchange(
      server.port,
      `POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n${whole}` +
        `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnext`,
    )
    expect(twice.text).toMatch(/^HTTP\/1.1 401 [\s\S]*\{"error":"refused"\}HTTP\/1.1 200 [\s\S]*\r\n\r\nnext$/)
    const refusal = twice.text.slice(0, twice.text.indexOf("HTTP/1.1 200"))
    expect(refusal).not.toMatch(/^connection: close/im)
  }, 30_000)

  it("lets a request in flight finish before it closes, then refuses connections", async () => {
    const server = await startFixture()
    const request = slowRequest(server.url)
    await pause(200)
    server.send("close 10000")
    const closed = server.next("closed")
    let closedEarly = false
    void closed.then(() => {
      closedEarly = true
    })
    await pause(300)
    expect(closedEarly).toBe(false)
    request.finish()
    const response = await request.response
    expect(await response.text()).toBe("in flight")
    await closed
    await expect(fetch(`${server.url}/ip`)).rejects.toThrow()
  })

  it("cuts a request still open when the grace period runs out", async () => {
    const server = await startFixture()
    const request = slowRequest(server.url)
    await pause(200)
    const started = Date.now()
    server.send("close 300")
    await server.next("closed")
    expect(Date.now() - started).toBeLessThan(5_000)
    await expect(request.response.then((response) => response.text())).rejects.toThrow()
  })

  it("refuses a port that is taken, even by another Bun server", async () => {
    const first = await startFixture()
    const second = await startFixture()
    second.send(`listen ${first.port}`)
    const { listen } = await second.next<{ listen: { refused?: string; message?: string } }>("listen")
    expect(listen.refused).toBe("EADDRINUSE")
    expect(listen.message).toMatch(/in use/)
  })
})
