/**
 * Node's `ServerResponse`, whose answers made while their request is being handled are written at the end of the
 * event loop's turn, back to back with the others made in that turn (as uWebSockets corks its responses per loop
 * iteration).
 *
 * Why: writing an answer wakes whoever waits for it. A peer asleep on another core costs the writer an
 * inter-processor wake-up inside `writev`, and on a virtual machine that is the dearest part of a small answer: on
 * this project's 2-core benchmark box a third of a token-checked read's CPU (issue 10). Answers served from memory
 * are made one per request, each as its data arrives, so the peer is found asleep again and again; written back
 * to back, it is woken once and found awake for the rest. Same-box peers (a proxy or sidecar in front of the
 * service, a load generator) gain the most.
 *
 * Only answers made within their request's own handling wait: one made later, when a database or cache replies,
 * is already written with the others that reply resolved, and holding it would only add a turn (measured: writes
 * through SQLite's group commit and reads through Redis cost more held). A held answer waits at most for the rest
 * of its turn, the requests whose data arrived with it; writes before `end` (a streamed body) are never held, and
 * answers keep their order, since held ends run in the order they were asked.
 */
import { type IncomingMessage, ServerResponse } from "node:http"

type End = (this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown) => ServerResponse

interface Held {
  readonly response: ServerResponse
  readonly chunk: unknown
  readonly encoding: unknown
  readonly callback: unknown
}

const end = ServerResponse.prototype.end as End
let held: Array<Held> = []

const flush = () => {
  const turn = held
  held = []
  for (const { response, chunk, encoding, callback } of turn) {
    try {
      end.call(response, chunk, encoding, callback)
    } catch (error) {
      // `end` throws only on a broken answer (headers are checked as they are set); nothing can answer it now.
      response.destroy(error instanceof Error ? error : new Error(String(error)))
    }
  }
}

export class CoalescedResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  #handling = false

  /** Runs the request's handling: an answer it ends before returning is written at the end of the turn. */
  handle<A>(handling: () => A): A {
    this.#handling = true
    try {
      return handling()
    } finally {
      this.#handling = false
    }
  }

  override end(chunk?: unknown, encoding?: unknown, callback?: unknown): this {
    if (!this.#handling) return end.call(this, chunk, encoding, callback) as this
    if (held.length === 0) setImmediate(flush)
    held.push({ response: this, chunk, encoding, callback })
    return this
  }
}
