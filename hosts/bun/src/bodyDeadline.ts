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
 */
import { malformedResponse, NOT_RECEIVED_IN_TIME } from "@coffer/node"

/** The 408 a late body gets; `Connection: close`, since the rest of the body may still be on its way. */
const late = (): Response => {
  const response = malformedResponse(408, NOT_RECEIVED_IN_TIME)
  response.headers.set("Connection", "close")
  return response
}

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
    let timer: ReturnType<typeof setTimeout> | undefined
    // Read by hand rather than through `pipeThrough`, whose pipe costs a body request on Bun twice as much.
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        timer = setTimeout(() => {
          controller.error(new Error("the request body was not received in time"))
          source.cancel().catch(() => undefined)
          resolve(late())
        }, timeoutMs)
      },
      pull: async (controller) => {
        const { done, value } = await source.read()
        // Cut meanwhile: the stream has already failed, and what the read brought goes nowhere.
        if (controller.desiredSize === null) return
        if (done) {
          clearTimeout(timer)
          controller.close()
        } else controller.enqueue(value)
      },
      cancel: (reason) => {
        clearTimeout(timer)
        return source.cancel(reason)
      },
    })
    // `duplex` is what a streamed body needs (fetch's spec); Bun's types may not name it.
    const timed = new Request(request, { body, duplex: "half" } as RequestInit)
    // A handler that answers without reading the whole body (a refusal) has its answer sent as it is.
    Promise.resolve()
      .then(() => handle(timed))
      .then(resolve, reject)
      .finally(() => clearTimeout(timer))
  })
