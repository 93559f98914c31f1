/**
 * Cross-instance invalidation without Redis: the Cache's `publish`/`subscribe` over Postgres `LISTEN/NOTIFY`,
 * every other Cache operation left to the in-process cache it wraps. Instances that share one Postgres and no
 * Redis each keep their own cache; a revoked token or a saved schema is announced on `publish`, and every
 * instance's subscribers hear it at once, as they would through Redis.
 *
 * One dedicated connection listens on one Postgres channel (`coffer_cache`); each notification carries the
 * Cache channel and the message as JSON, and is handed to the wrapped cache's own `publish`, which fans it out to
 * the local subscribers (Postgres delivers a session's own notifications to it too, so the publisher's
 * subscribers hear it the same way). When the connection fails it is reopened after a second. Notifications sent
 * meanwhile never reach this instance, so it forgets everything it cached (`forget`) as soon as the connection is
 * lost (and after each failed attempt to reopen it), and again once it listens: a token revoked, a key deleted or a
 * session ended elsewhere in the gap would otherwise still be honoured here until its entry expired (an instance cut
 * off from Postgres answered from its cache for up to a minute), and a schema saved elsewhere served stale. An empty
 * cache costs each key one read of the database.
 *
 * A publish goes out on the listening connection; while that is being reopened, on a connection of its own, so that
 * the other instances hear of a revocation made here even then.
 *
 * A connection can also stall without closing (a frozen proxy, a NAT entry dropped, a peer gone without a reset):
 * nothing fails, notifications simply stop coming, and a query sent on it never answers. So the listening connection
 * is probed (`select 1`) every `heartbeatMs`, and a probe or a publish that gets no answer within `timeoutMs` gives
 * the connection up: it is destroyed and reopened as above (and this instance forgets what it cached), and the
 * publish goes out on a connection of its own, itself bounded by `timeoutMs`, so a write never waits on it for long.
 */
import { Cache, StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"

const CHANNEL = "coffer_cache"
const RECONNECT_MS = 1_000
const HEARTBEAT_MS = 5_000
const TIMEOUT_MS = 2_000

export interface Options {
  readonly url: Redacted.Redacted<string> | string
  /** The in-process cache whose operations serve, and whose subscribers hear the notifications. */
  readonly local: Cache.Cache["Service"]
  /** Empties `local`: run once listening resumes after a lost connection. */
  readonly forget: Effect.Effect<void>
  /** How often the listening connection is probed. Default 5 s. */
  readonly heartbeatMs?: number | undefined
  /** How long a probe, a publish or a connection attempt may take before the connection is given up. Default 2 s. */
  readonly timeoutMs?: number | undefined
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** A call that got no answer in time: the connection it went out on is given up. */
class Stalled extends Error {}

/** `promise`, or a rejection (`Stalled`) once `ms` have passed without it settling. */
const within = <A>(promise: Promise<A>, ms: number, what: string): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Stalled(`${what}: no answer within ${ms} ms`)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })

/** `options.local` with publish and subscribe over Postgres; the listening connection lives as long as the scope. */
export const make = (options: Options): Effect.Effect<Cache.Cache["Service"], StoreUnavailable, Scope.Scope> =>
  Effect.gen(function* () {
    const { local } = options
    const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS
    const timeoutMs = options.timeoutMs ?? TIMEOUT_MS
    const { default: pg } = yield* Effect.promise(() => import("pg"))
    const context = yield* Effect.context<never>()
    const run = Effect.runForkWith(context)
    const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
    const state: { client: InstanceType<typeof pg.Client> | undefined; closed: boolean; listened: boolean } = {
      client: undefined,
      closed: false,
      listened: false,
    }
    // Named with the process, so that an operator (or a test) can tell the instances' listeners apart.
    const applicationName = `coffer-listen ${process.pid}`

    const deliver = (payload: string | undefined) => {
      try {
        const { channel, message: text } = JSON.parse(payload ?? "") as { channel: string; message: string }
        if (typeof channel === "string" && typeof text === "string") run(Effect.ignore(local.publish(channel, text)))
      } catch {
        // Not ours: another program on the channel.
      }
    }

    type Client = InstanceType<typeof pg.Client>
    /** Gives a connection up at once, even one whose link stalled (`end` would wait for the peer). */
    const destroy = (client: Client) => {
      ;(client as unknown as { connection?: { stream?: { destroy?: () => void } } }).connection?.stream?.destroy?.()
      client.end().catch(() => undefined)
    }
    /** Each listening connection's way to be given up, once (`undefined`: quietly, at close): set by `connect`. */
    const abandon = new WeakMap<Client, (reason: string | undefined) => void>()

    const connect = async (): Promise<void> => {
      const client = new pg.Client({
        connectionString: url,
        application_name: applicationName,
        keepAlive: true,
        connectionTimeoutMillis: timeoutMs,
      })
      let given = false
      let heartbeat: ReturnType<typeof setInterval> | undefined
      const retry = () => {
        if (given) return
        given = true
        if (heartbeat !== undefined) clearInterval(heartbeat)
        if (state.client === client) state.client = undefined
        destroy(client)
        if (state.closed) return
        // Not listening, this instance hears of no revocation: what it cached is forgotten now, not only once it
        // listens again, so that an instance cut off from Postgres never honours a revoked credential meanwhile.
        run(options.forget)
        setTimeout(() => connect().catch(() => undefined), RECONNECT_MS).unref()
      }
      abandon.set(client, (reason) => {
        if (given) return
        if (reason === undefined) {
          given = true
          if (heartbeat !== undefined) clearInterval(heartbeat)
          return
        }
        run(Effect.logWarning("Postgres LISTEN: the connection stopped answering; reconnecting", { error: reason }))
        retry()
      })
      client.on("error", (error) => {
        if (given) return
        run(Effect.logWarning("Postgres LISTEN: the connection failed; reconnecting", { error: message(error) }))
        retry()
      })
      client.on("notification", (notification) => {
        if (notification.channel === CHANNEL) deliver(notification.payload)
      })
      try {
        await within(client.connect(), timeoutMs, "connect")
        await within(client.query(`LISTEN ${CHANNEL}`), timeoutMs, "LISTEN")
        if (given || state.closed) return void destroy(client)
        state.client = client
        // A link that stalls fails nothing: only a probe that goes unanswered tells.
        heartbeat = setInterval(() => {
          within(client.query("select 1"), timeoutMs, "heartbeat").catch((error) =>
            abandon.get(client)?.(message(error)),
          )
        }, heartbeatMs)
        heartbeat.unref()
        if (state.listened) {
          run(
            options.forget.pipe(
              Effect.andThen(
                Effect.logWarning(
                  "Postgres LISTEN: listening again; what this instance had cached is forgotten, as notifications sent meanwhile were missed",
                ),
              ),
            ),
          )
        }
        state.listened = true
      } catch (error) {
        retry()
        throw error
      }
    }

    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: connect,
        catch: (error) =>
          new StoreUnavailable({ store: "database", message: `Postgres LISTEN failed: ${message(error)}` }),
      }),
      () =>
        Effect.promise(async () => {
          state.closed = true
          const client = state.client
          state.client = undefined
          if (client !== undefined) {
            abandon.get(client)?.(undefined)
            await within(client.end(), timeoutMs, "end").catch(() => destroy(client))
          }
        }),
    )

    const notify = async (client: Client, payload: string) => {
      await within(client.query("select pg_notify($1, $2)", [CHANNEL, payload]), timeoutMs, "NOTIFY")
    }
    /** While the listener is being reopened, or when it did not answer: one connection for this message alone. */
    const notifyAlone = async (payload: string) => {
      const client = new pg.Client({
        connectionString: url,
        application_name: applicationName,
        connectionTimeoutMillis: timeoutMs,
      })
      client.on("error", () => undefined)
      try {
        await within(client.connect(), timeoutMs, "connect")
        await notify(client, payload)
      } finally {
        destroy(client)
      }
    }

    return Cache.Cache.of({
      ...local,
      publish: (channel, text) =>
        Effect.tryPromise({
          try: async () => {
            const payload = JSON.stringify({ channel, message: text })
            const client = state.client
            if (client === undefined) return notifyAlone(payload)
            await notify(client, payload).catch((error) => {
              // The listening connection did not answer: give it up (it is reopened, and this instance forgets).
              if (error instanceof Stalled) abandon.get(client)?.(message(error))
              return notifyAlone(payload)
            })
          },
          catch: (error) =>
            new StoreUnavailable({ store: "database", message: `Postgres NOTIFY failed: ${message(error)}` }),
        }),
    })
  })

/**
 * The in-process cache with publish and subscribe over Postgres: `local` built in the layer's scope, its `clear`
 * run when listening resumes after a lost connection.
 */
export const layer = <E>(
  url: Redacted.Redacted<string> | string,
  local: Effect.Effect<Cache.Cache["Service"] & { readonly clear: Effect.Effect<void> }, E, Scope.Scope>,
): Layer.Layer<Cache.Cache, StoreUnavailable | E> =>
  Layer.effect(
    Cache.Cache,
    Effect.flatMap(local, (cache) => make({ url, local: cache, forget: cache.clear })),
  )
