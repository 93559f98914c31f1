/**
 * `CoalescedResponse` on a real Node server: an answer made while its request is handled is held to the end of the
 * turn and then written whole, one made later is written at once, and nothing is lost or reordered either way.
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { CoalescedResponse } from "./coalescedResponse.js"

type Handler = (request: IncomingMessage, response: CoalescedResponse) => void

const servers: Array<Server> = []
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(resolve))
    }),
  )
})

const serve = async (handler: Handler): Promise<string> => {
  const server = createServer<typeof IncomingMessage, typeof CoalescedResponse>(
    { ServerResponse: CoalescedResponse },
    (request, response) => response.handle(() => handler(request, response)),
  )
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const turnEnd = () => new Promise((resolve) => setImmediate(resolve))

describe("CoalescedResponse", () => {
  it("holds an answer made while its request is handled to the end of the turn, then writes it whole", async () => {
    const seen: Array<string> = []
    const base = await serve((_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      response.end("held answer", () => seen.push("ended"))
      seen.push(`handled, ended: ${response.writableEnded}`)
      queueMicrotask(() => seen.push(`same turn, ended: ${response.writableEnded}`))
      setImmediate(() => seen.push(`after the turn, ended: ${response.writableEnded}`))
    })
    const answer = await fetch(base)
    expect(answer.status).toBe(200)
    expect(await answer.text()).toBe("held answer")
    await turnEnd()
    expect(seen).toEqual(["handled, ended: false", "same turn, ended: false", "ended", "after the turn, ended: true"])
  })

  it("writes an answer made after its request's handling at once", async () => {
    let endedAtOnce: boolean | undefined
    const base = await serve((_, response) => {
      setTimeout(() => {
        response.end("later answer")
        endedAtOnce = response.writableEnded
      }, 1)
    })
    expect(await (await fetch(base)).text()).toBe("later answer")
    expect(endedAtOnce).toBe(true)
  })

  it("answers every request of a turn with its own body, streamed ones too, over kept-alive connections", async () => {
    const base = await serve((request, response) => {
      const n = new URL(request.url!, "http://x").searchParams.get("n")!
      if (Number(n) % 3 === 0) {
        // Streamed: the chunks go at once, only the end waits.
        response.write(`streamed ${n}, `)
        response.end("done")
      } else response.end(`answer ${n}`)
    })
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) => fetch(`${base}/?n=${n}`).then((answer) => answer.text())),
    )
    expect(answers).toEqual(Array.from({ length: 40 }, (_, n) => (n % 3 === 0 ? `streamed ${n}, done` : `answer ${n}`)))
  })

  it("keeps the order of pipelined requests' answers on one connection", async () => {
    const base = await serve((request, response) => response.end(`answer to ${request.url}`))
    const { port } = new URL(base)
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1")
      let text = ""
      socket.on("data", (chunk: Buffer) => {
        text += chunk.toString("latin1")
        if (text.match(/answer to \/[abc]/g)?.length === 3) {
          socket.end()
          resolve(text)
        }
      })
      socket.on("error", reject)
      // Three requests in one write: Node answers them in order, each after the one before has finished.
      socket.write(["/a", "/b", "/c"].map((path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`).join(""))
    })
    const bodies = raw
      .split("HTTP/1.1 200")
      .slice(1)
      .map((answer) => answer.slice(answer.indexOf("\r\n\r\n") + 4))
    expect(bodies).toEqual(["answer to /a", "answer to /b", "answer to /c"])
  })

  it("destroys an answer whose held end throws, and keeps serving", async () => {
    const base = await serve((request, response) => {
      if (request.url === "/broken") response.end(42 as unknown as string)
      else response.end("fine")
    })
    await expect(fetch(`${base}/broken`)).rejects.toThrow()
    expect(await (await fetch(`${base}/fine`)).text()).toBe("fine")
  })
})
