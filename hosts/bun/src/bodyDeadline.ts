/**
 * A request's body held to the request timeout (`COFFER_REQUEST_TIMEOUT_SECONDS`), as Node's `requestTimeout`
 * holds it: a body still arriving when the time is up is answered 408 with the apps' JSON error and the connection
 * closes. Bun's own bound is idle time only, so without this a body trickled a byte at a time held its connection
 * for as long as the client liked, and a stalled one was cut without an answer.
 *
 * The time counts from the headers (when Bun hands the request over) to the body's last byte, never the handler's
 * own work after it: the body is passed to the handler through a stream that notes its end. When the time is up
 * first, that stream fails, so a handler waiting on the body ends (its answer goes nowhere) instead of waiting for
 * ever, and the listener answers 408 in its place.
 *
 * A handler may answer before the body has all arrived (a refusal: no credential, too large). Bun then keeps
 * reading the rest to reuse the connection, with no bound but idle time, so a body trickled after a refusal held
 * the connection for ever. The rest is read here instead, and the answer waits for it: sent as it is once the
 * body has all arrived (a client that sends everything before reading, as `fetch` does, gets it on a connection it
 * can use again), or with `Connection: close` when the time is up first, which Bun closes after the answer.
 */
import { malformedResponse, NOT_RECEIVED_IN_TIME } from "@coffer/node"

/** `response` ending its connection, since the rest of the body may still be on its way. */
const closing = (response: Response): Response => {
  const copy = new Response(response.body, response)
  copy.headers.set("Connection", "close")
  return copy
}

/** The 408 a late body gets. */
const late = (): Response => malformedResponse(408, NOT_RECEIVED_IN_TIME)

/**
 * `handle(request)` with `request`'s body held to `timeoutMs`: its answer, or 408 when the body has not all arrived
 * by then. `request` must have a body.
 */
export const withBodyDeadline = (
  request: Request,
  timeoutMs: number,
  handle: (request: Request) => Response | Promise<Response>,
): Promise<Response> =>
  new Promise((resolve, reject) => {
    const source = request.body!.getReader()
    // Whether the body's last byte has come, and the handler's answer while the rest is still awaited.
    let ended = false
    let answered: Response | undefined
    const arrived = () => {
      ended = true
      clearTimeout(timer)
      if (answered !== undefined) resolve(answered)
    }
    // The handler's stream is open (not failed by the time, nor given up by the handler).
    let open = true
    const timer = setTimeout(() => {
      if (ended) return
      if (open) body.error(new Error("the request body was not received in time"))
      open = false
      source.cancel().catch(() => undefined)
      resolve(answered === undefined ? late() : closing(answered))
    }, timeoutMs)
    let body!: ReadableStreamDefaultController<Uint8Array>
    // Read by hand rather than through `pipeThrough`, whose pipe costs a body request on Bun twice as much.
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        body = controller
      },
      pull: async (controller) => {
        const { done, value } = await source.read()
        if (done) arrived()
        // Failed or given up meanwhile: what the read brought goes nowhere.
        if (!open) return
        if (done) controller.close()
        else controller.enqueue(value)
      },
      // The handler wants no more of it (a refusal); the rest is still read, below, within the time.
      cancel: () => {
        open = false
      },
    })
    /** Reads what the handler left of the body, and drops it. */
    const drain = async () => {
      try {
        while (!ended) {
          const { done } = await source.read()
          if (done) arrived()
        }
      } catch {
        // Cut by the time running out, or by the client: the answer is settled by then.
      }
    }
    // `duplex` is what a streamed body needs (fetch's spec); Bun's types may not name it.
    const timed = new Request(request, { body: stream, duplex: "half" } as RequestInit)
    Promise.resolve()
      .then(() => handle(timed))
      .then(
        (response) => {
          if (ended) return resolve(response)
          answered = response
          void drain()
        },
        (cause: unknown) => {
          clearTimeout(timer)
          reject(cause)
        },
      )
  })
