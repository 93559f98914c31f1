/**
 * A request's matched handlers run as one. Where more than one handler matches, Hono runs them through its
 * `compose`, each layer an async function awaiting the next, and hands @hono/node-server a promise of the answer:
 * the request frame (`./requestFrame.ts`) in front of a token-checked read cost it a compose, several promises and
 * turns of the microtask queue, and an answer written a turn later than it was made (issue 10). The app's router
 * (`./router.ts`) hands Hono one handler per match instead, made here once per path, which runs the same handlers
 * in the same order under the same rules as Hono's compose:
 * - an `Error` a handler throws or rejects with is answered by the app's error handler at that layer, so the
 *   layers outside it (the frame's log line and headers) still see the answer; anything else thrown propagates;
 * - a handler's returned response becomes the answer unless one is set already; past the last handler lies the
 *   not-found answer; a chain that ends without an answer is an error.
 *
 * It stays synchronous as far as its handlers do. A handler marked `passesSynchronously` gets a `next` that
 * returns nothing when the rest of the chain answered without waiting, and the promise of the rest otherwise; every
 * other handler gets the promise Hono's own `next` is, so a middleware written for Hono runs unchanged. A request
 * whose every step answers at once (a read served from the process's caches) is answered within the call.
 *
 * Hono gives each handler the parameters of its own pattern; here the chain is one entry carrying the parameters of
 * all its patterns (where two name the same one, the later, the route's, wins), which every handler reads.
 */
import type { Context, ErrorHandler, Next } from "hono"
import type { H } from "hono/types"

const synchronous = new WeakSet<object>()

/** Marks a middleware that takes a `next` returning nothing when the rest of the chain finished synchronously. */
export const passesSynchronously = <Handler extends object>(handler: Handler): Handler => {
  synchronous.add(handler)
  return handler
}

/** What a marked middleware's `next` returns: nothing when the rest of the chain has answered, else its promise. */
export type Passed = void | Promise<void>

const NOT_FINALIZED = "Context is not finalized. Did you forget to return a Response object or `await next()`?"

/** `handlers` as one handler, answering what they throw with `errorHandler` (the app's `onError`). */
export const chainOf = (handlers: ReadonlyArray<H>, errorHandler: ErrorHandler): H => {
  const count = handlers.length
  return (c: Context, next: Next) => {
    let index = -1
    const answered = (res: unknown): void => {
      if (res && !c.finalized) c.res = res as Response
    }
    const failed = (error: unknown): Passed => {
      if (!(error instanceof Error)) throw error
      c.error = error
      const res = errorHandler(error, c)
      if (res instanceof Promise)
        return res.then((awaited) => {
          c.res = awaited
        })
      c.res = res
    }
    const promised = (i: number): Promise<void> => {
      try {
        return Promise.resolve(step(i))
      } catch (error) {
        return Promise.reject(error)
      }
    }
    const step = (i: number): Passed => {
      if (i <= index) throw new Error("next() called multiple times")
      index = i
      const handler = i < count ? handlers[i]! : next
      let res: unknown
      try {
        res = handler(c, synchronous.has(handler) ? ((() => step(i + 1)) as Next) : () => promised(i + 1))
      } catch (error) {
        return failed(error)
      }
      if (res instanceof Promise) return res.then(answered, failed)
      answered(res)
    }
    const answer = (): Response => {
      if (!c.finalized) throw new Error(NOT_FINALIZED)
      return c.res
    }
    const ran = step(0)
    return ran instanceof Promise ? ran.then(answer) : answer()
  }
}
