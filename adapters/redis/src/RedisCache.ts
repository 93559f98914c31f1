/**
 * The Cache port on Redis, through ioredis: the cache every instance of a service shares, so rate-limit counts,
 * cached token checks and invalidations over pub/sub hold across instances.
 *
 * Two connections per cache: one for commands and one in subscriber mode, since Redis allows nothing else on a
 * connection that has subscribed. Both fail fast and heal themselves: while Redis cannot be reached every call
 * fails with `StoreUnavailable` within about `commandTimeoutMs` (no offline queue, no waiting on a reconnect), and
 * ioredis reconnects in the background with a capped backoff, re-subscribing the channels it had.
 *
 * The one thing building refuses is a database the URL names wrongly: a path that is no index (ioredis reads it
 * with `parseInt`, so `/abc` was database 0 unannounced, or on Node a `SELECT NaN` that crashed the process), or an
 * index Redis refuses (`ERR DB index is out of range`), after which ioredis carried on in database 0. Either is a
 * setting to fix, not an outage to wait out.
 */
import { Cache, StoreUnavailable } from "@coffer/kernel"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Redis, RedisOptions } from "ioredis"
import { makeBatchedMget } from "./batchedMget.js"

export interface Options {
  /** `redis://[[user]:password@]host:port[/db]` or `rediss://…`; pass it `Redacted` when it holds a password. */
  readonly url: string | Redacted.Redacted<string>
  /** Put before every key and channel, so that services and test runs can share one Redis. Default `coffer:`. */
  readonly prefix?: string | undefined
  /** How long a connection attempt or one command may take before the call fails. Default 500. */
  readonly commandTimeoutMs?: number | undefined
}

/** How often the subscriber connection, which otherwise only listens, is probed for a dead socket. */
const heartbeatEvery = "5 seconds"

/** Reconnection delays double from 100 ms up to this, so a Redis that comes back is found within seconds. */
const maxReconnectDelayMs = 2_000

/**
 * INCR, then start the window when this increment created the key. A key without expiry (written by `set`, or
 * left by a crash between the two commands of a non-atomic version) gets one too, else it would never reset.
 */
const incrementScript = `
local count = redis.call("INCR", KEYS[1])
if count == 1 or redis.call("PTTL", KEYS[1]) == -1 then
  redis.call("PEXPIRE", KEYS[1], ARGV[1])
end
return count
`

/** Redis refuses a TTL below one millisecond; round up so a key never expires sooner than asked. */
const px = (ttlMs: number) => Math.max(1, Math.ceil(ttlMs))

/** The only place a driver failure becomes a port error. The message names the command, never a key or address. */
const unavailable = (command: string) => (cause: unknown) =>
  new StoreUnavailable({ store: "cache", message: `the cache did not answer (${command})`, cause })

const attempt = <A>(command: string, run: () => Promise<A>): Effect.Effect<A, StoreUnavailable> =>
  Effect.tryPromise({ try: run, catch: unavailable(command) })

const clientOptions = (timeoutMs: number, name: string): RedisOptions => ({
  connectionName: name,
  // Fail at once instead of queueing while disconnected: a queued call would wait for a Redis that may not come.
  enableOfflineQueue: false,
  // Never replay a command after a reconnect: an INCR sent twice would count one attempt twice.
  maxRetriesPerRequest: 0,
  connectTimeout: timeoutMs,
  commandTimeout: timeoutMs,
  // A connection that swallows commands without answering (a half-open socket) is dropped and reconnected.
  socketTimeout: timeoutMs * 2,
  retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, maxReconnectDelayMs),
  // The commands of one turn of the event loop leave in one write and come back in one read: a system call each way
  // per command was most of what a token-checked read through Redis cost (issue 10).
  enableAutoPipelining: true,
  // MGETs are already one per turn (`./batchedMget.ts`), sent at its end: pipelined, they would wait a turn more.
  autoPipeliningIgnoredCommands: ["mget"],
})

/**
 * The database index a Redis URL names: its path (`/<index>`), else its `db` query parameter (ioredis takes
 * either), else 0; or why it names none, quoting only that part (the rest of a URL may hold a password).
 */
export const databaseIndex = (url: string): Result.Result<number, string> => {
  if (!URL.canParse(url)) return Result.fail("the URL does not parse")
  const parsed = new URL(url)
  const path = parsed.pathname === "/" ? "" : parsed.pathname
  const query = parsed.searchParams.get("db")
  const [named, where] = path !== "" ? [path.slice(1), `the path ${JSON.stringify(path)}`] : [query, "db="]
  if (named === null) return Result.succeed(0)
  return /^\d+$/.test(named) && Number.isSafeInteger(Number(named))
    ? Result.succeed(Number(named))
    : Result.fail(
        `expected a database index, a non-negative integer (redis://host:6379/0), got ${where === "db=" ? `db=${JSON.stringify(named)}` : where}`,
      )
}

/** Whether `error` is Redis refusing the `SELECT` of the URL's database, which ioredis sends on every connect. */
const refusesDatabase = (error: Error & { readonly command?: { readonly name?: string } }) =>
  error.command?.name === "select"

/** Resumes once the client is ready or has met its first error, whichever comes first. */
const settled = (client: Redis): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (client.status === "ready") return resume(Effect.void)
    const done = () => resume(Effect.void)
    client.once("ready", done).once("error", done)
    return Effect.sync(() => {
      client.off("ready", done).off("error", done)
    })
  })

/**
 * Builds the cache; both connections close when the scope does. Never fails for an outage, even with Redis down;
 * fails with `StoreUnavailable` when the URL names no database index, or Redis refuses the one it names.
 */
export const make = Effect.fnUntraced(function* (
  options: Options,
): Effect.fn.Return<Cache.Cache["Service"], StoreUnavailable, Scope.Scope> {
  const prefix = options.prefix ?? "coffer:"
  const timeoutMs = options.commandTimeoutMs ?? 500
  const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
  const database = databaseIndex(url)
  if (Result.isFailure(database)) {
    return yield* new StoreUnavailable({ store: "cache", message: `Redis URL: ${database.failure}` })
  }
  const index = database.success
  const context = yield* Effect.context<never>()
  // Loaded when a cache is built, so that a host without Redis never holds the driver in memory.
  const { Redis: RedisClient } = yield* Effect.promise(() => import("ioredis"))
  let closing = false
  let started = false
  /** Redis's answer to the `SELECT` of the URL's database, once it refused it. */
  let refusal: string | undefined

  // Connection state goes to the log on change only (lost, back), without the URL, which may hold a password.
  const watch = (client: Redis, role: string) => {
    let state: "starting" | "up" | "down" | "refused" = "starting"
    const down = (reason: string) => {
      if (closing || state === "down" || state === "refused") return
      state = "down"
      Effect.runForkWith(context)(
        Effect.logWarning(`cache: Redis ${role} connection unavailable (${reason}); calls fail until it is back`),
      )
    }
    // ioredis goes on after a refused SELECT, in database 0, among keys that are not this cache's: the connection
    // is closed for good instead, so that every call fails (503) rather than answer from another database. At
    // start that stops the build; later (Redis down at start, then up with fewer databases), it is logged once.
    const refuse = (reason: string) => {
      state = "refused"
      client.disconnect()
      if (refusal !== undefined) return
      refusal = reason
      if (started)
        Effect.runForkWith(context)(
          Effect.logError(
            `cache: Redis refused database ${index} of its URL (${reason}); every call fails until ` +
              "the service restarts with an index the server has",
          ),
        )
    }
    client.on("error", (error: Error) => (refusesDatabase(error) ? refuse(error.message) : down(error.message)))
    client.on("close", () => down("connection closed"))
    client.on("ready", () => {
      if (state === "refused") return
      if (state === "down") Effect.runForkWith(context)(Effect.logInfo(`cache: Redis ${role} connection is back`))
      state = "up"
    })
    return client
  }

  const connect = (role: string) =>
    Effect.acquireRelease(
      Effect.sync(() => watch(new RedisClient(url, clientOptions(timeoutMs, `coffer-cache-${role}`)), role)),
      (client) =>
        Effect.sync(() => {
          closing = true
        }).pipe(
          Effect.andThen(attempt("QUIT", () => client.quit())),
          Effect.ignore,
          // Stops reconnection timers too, so a closed cache keeps no process alive.
          Effect.ensuring(Effect.sync(() => client.disconnect())),
        ),
    )

  const client = yield* connect("command")
  const subscriber = yield* connect("subscriber")
  // Give the first connection its chance, else the first calls after start would all fail; a Redis that is down
  // answers with an error at once, and a silent one is given up after the timeout: an outage never fails building.
  // A refused database does: Redis answered, and no wait mends the setting.
  yield* Effect.all([settled(client), settled(subscriber)], { concurrency: "unbounded" }).pipe(
    Effect.timeoutOption(timeoutMs * 2),
  )
  if (refusal !== undefined) {
    return yield* new StoreUnavailable({
      store: "cache",
      message:
        `Redis refused database ${index}, which the URL names (${refusal}); name one the server has ` +
        "(its `databases` setting, 16 by default: 0 to 15)",
    })
  }
  started = true

  const listeners = new Map<string, Set<Queue.Queue<string, Cause.Done>>>()
  subscriber.on("message", (channel: string, message: string) => {
    const queues = listeners.get(channel)
    // ioredis re-subscribes after an outage what it had, including a channel whose UNSUBSCRIBE failed meanwhile.
    if (queues === undefined) return void subscriber.unsubscribe(channel).catch(() => undefined)
    for (const queue of queues) Queue.offerUnsafe(queue, message)
  })
  // Streams still open when the cache closes end rather than wait forever.
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      for (const queues of listeners.values()) for (const queue of queues) Queue.endUnsafe(queue)
    }),
  )
  // A subscriber connection only receives, so without a probe a dead socket would go unnoticed and drop messages.
  yield* attempt("PING", () => subscriber.ping()).pipe(
    Effect.ignore,
    Effect.repeat(Schedule.spaced(heartbeatEvery)),
    Effect.forkScoped,
  )

  const unlisten = (channel: string, queue: Queue.Queue<string, Cause.Done>) => {
    const queues = listeners.get(channel)
    queues?.delete(queue)
    if (queues?.size !== 0) return false
    listeners.delete(channel)
    return true
  }

  // Each subscriber sends its own SUBSCRIBE (a no-op for Redis when the channel is already subscribed) and waits
  // for the acknowledgement: on one connection, replies come in order, so the channel is active once it returns.
  const subscribe = (channel: string) =>
    Effect.acquireRelease(
      Effect.gen(function* () {
        const name = prefix + channel
        const queue = yield* Queue.unbounded<string, Cause.Done>()
        const queues = listeners.get(name) ?? new Set()
        listeners.set(name, queues.add(queue))
        yield* attempt("SUBSCRIBE", () => subscriber.subscribe(name)).pipe(
          Effect.onError(() => Effect.sync(() => unlisten(name, queue))),
        )
        return { name, queue }
      }),
      ({ name, queue }) =>
        Effect.suspend(() => {
          Queue.endUnsafe(queue)
          return unlisten(name, queue)
            ? Effect.ignore(attempt("UNSUBSCRIBE", () => subscriber.unsubscribe(name)))
            : Effect.void
        }),
    ).pipe(Effect.map(({ queue }) => Stream.fromQueue(queue)))

  const getMany = makeBatchedMget((keys) => client.mget(keys.map((key) => prefix + key)), unavailable("MGET"))

  return Cache.Cache.of({
    get: (key) => attempt("GET", () => client.get(prefix + key)).pipe(Effect.map((value) => value ?? undefined)),
    getMany,
    set: (key, value, ttlMs) =>
      attempt("SET", () =>
        ttlMs === undefined ? client.set(prefix + key, value) : client.set(prefix + key, value, "PX", px(ttlMs)),
      ).pipe(Effect.asVoid),
    delete: (key) => attempt("DEL", () => client.del(prefix + key)).pipe(Effect.asVoid),
    increment: (key, ttlMs) =>
      attempt("INCREMENT", () => client.eval(incrementScript, 1, prefix + key, px(ttlMs))).pipe(Effect.map(Number)),
    // PTTL answers -2 for a missing key and -1 for a key without expiry: both are "no TTL" to the port.
    ttl: (key) => attempt("PTTL", () => client.pttl(prefix + key)).pipe(Effect.map((ms) => (ms >= 0 ? ms : undefined))),
    publish: (channel, message) =>
      attempt("PUBLISH", () => client.publish(prefix + channel, message)).pipe(Effect.asVoid),
    subscribe,
  })
})

/**
 * The Redis Cache. An outage never fails building it: with Redis down the service starts and its calls fail until
 * it is up. A URL whose database is no index, or one Redis refuses, does (`make`).
 */
export const layer = (options: Options): Layer.Layer<Cache.Cache, StoreUnavailable> =>
  Layer.effect(Cache.Cache, make(options))
