/**
 * Run by `src/listen.test.ts` under Bun (from source, with the `@coffer/source` condition): one Bun listener on a
 * free port, driven line by line from stdin so that the test, on Node, can watch shutdown from the outside.
 *
 * Routes: `GET /ip` answers the listener's `clientAddress`; `POST /echo` answers its body once it has all of it,
 * so a body sent slowly keeps a request in flight; `POST /refuse` answers 401 without reading the body;
 * `GET /slow/:ms` answers after that many milliseconds, `POST /slow/:ms` after it has read the body and waited that
 * long. `REQUEST_TIMEOUT_MS`, when set, is the listener's request timeout. Commands: `close <graceMs>` closes and prints `closed`;
 * `listen <port>` tries a second listener on that port and prints
 * `{ listen: { refused: code, message } }` or `{ listen: { bound: port } }`.
 * Every line printed is JSON.
 */
import { Hono } from "hono"
import { bunListener } from "../src/listen.js"

const print = (value: unknown) => console.log(JSON.stringify(value))

const app = new Hono()
app.get("/ip", (c) => c.text(bunListener.clientAddress(c) ?? "unknown"))
app.post("/echo", async (c) => c.text(await c.req.text()))
// Refuses without reading the body, as a route refuses a request without a credential.
app.post("/refuse", (c) => c.json({ error: "refused" }, 401))
app.on(["GET", "POST"], "/slow/:ms", async (c) => {
  const body = await c.req.text()
  await new Promise((resolve) => setTimeout(resolve, Number(c.req.param("ms"))))
  return c.text(`done${body}`)
})

const requestTimeoutMs =
  process.env.REQUEST_TIMEOUT_MS === undefined ? undefined : Number(process.env.REQUEST_TIMEOUT_MS)
const listening = await bunListener.listen((request, env) => app.fetch(request, env), "127.0.0.1", 0, {
  requestTimeoutMs,
})
print({ url: listening.url, port: listening.port })

let input = ""
process.stdin.on("data", async (chunk) => {
  input += chunk
  const lines = input.split("\n")
  input = lines.pop() ?? ""
  for (const line of lines) {
    const [command, argument] = line.split(" ")
    if (command === "close") {
      await listening.close(Number(argument))
      print({ closed: true })
    } else if (command === "listen") {
      try {
        const second = await bunListener.listen(() => new Response(), "127.0.0.1", Number(argument))
        print({ listen: { bound: second.port } })
        await second.close(0)
      } catch (error) {
        print({ listen: { refused: (error as { code?: string }).code, message: (error as Error).message } })
      }
    }
  }
})
