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
 * meanwhile never reach this instance, so once it listens again it forgets everything it cached (`forget`): a
 * token revoked, a key deleted or a session ended elsewhere in the gap would otherwise still be honoured here until
 * its entry expired, and a schema saved elsewhere served stale. An empty cache costs each key one read of the
 * database.
 *
 * A publish goes out on the listening connection; while that is being reopened, on a connection of its own, so that
 * the other instances hear of a revocation made here even then.
 */
import { Cache, StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"

const CHANNEL = "coffer_cache"
const RECONNECT_MS = 1_000

export interface Options {
  readonly url: Redacted.Redacted<string> | string
  /** The in-process cache whose operations serve, and whose subscribers hear the notifications. */
  readonly local: Cache.Cache["Service"]
  /** Empties `local`: run once listening resumes after a lost connection. */
  readonly forget: Effect.Effect<void>
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** `options.local` with publish and subscribe over Postgres; the listening connection lives as long as the scope. */
export const make = (options: Options): Effect.Effect<Cache.Cache["Service"], StoreUnavailable, Scope.Scope> =>
  Effect.gen(function* () {
    const { local } = options
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

    const connect = async (): Promise<void> => {
      const client = new pg.Client({ connectionString: url, application_name: applicationName, keepAlive: true })
      const retry = () => {
        if (state.client === client) state.client = undefined
        client.end().catch(() => undefined)
        if (!state.closed) setTimeout(() => connect().catch(() => undefined), RECONNECT_MS).unref()
      }
      client.on("error", (error) => {
        run(Effect.logWarning("Postgres LISTEN: the connection failed; reconnecting", { error: message(error) }))
        retry()
      })
      client.on("notification", (notification) => {
        if (notification.channel === CHANNEL) deliver(notification.payload)
      })
      try {
        await client.connect()
        await client.query(`LISTEN ${CHANNEL}`)
        state.client = client
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
          await state.client?.end().catch(() => undefined)
        }),
    )

    const notify = async (client: InstanceType<typeof pg.Client>, payload: string) => {
      await client.query("select pg_notify($1, $2)", [CHANNEL, payload])
    }
    /** While the listener is being reopened: one connection for this message alone. */
    const notifyAlone = async (payload: string) => {
      const client = new pg.Client({ connectionString: url, application_name: applicationName })
      client.on("error", () => undefined)
      try {
        await client.connect()
        await notify(client, payload)
      } finally {
        await client.end().catch(() => undefined)
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
            await notify(client, payload).catch(() => notifyAlone(payload))
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
