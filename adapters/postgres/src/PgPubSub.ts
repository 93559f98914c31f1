/**
 * Cross-instance invalidation without Redis: the Cache's `publish`/`subscribe` over Postgres `LISTEN/NOTIFY`,
 * every other Cache operation left to the in-process cache it wraps. Instances that share one Postgres and no
 * Redis each keep their own cache; a revoked token or a saved schema is announced on `publish`, and every
 * instance's subscribers hear it at once, as they would through Redis.
 *
 * One dedicated connection listens on one Postgres channel (`coffer_cache`); each notification carries the
 * Cache channel and the message as JSON, and is handed to the wrapped cache's own `publish`, which fans it out to
 * the local subscribers (Postgres delivers a session's own notifications to it too, so the publisher's
 * subscribers hear it the same way). When the connection fails it is reopened after a second; messages sent
 * meanwhile are lost, which costs what a lost Redis message costs: entries live out their TTL.
 */
import { Cache, StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

const CHANNEL = "coffer_cache"
const RECONNECT_MS = 1_000

export interface Options {
  readonly url: Redacted.Redacted<string> | string
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** The wrapped cache (`Cache` in context) with publish and subscribe over Postgres. */
export const layer = (options: Options): Layer.Layer<Cache.Cache, StoreUnavailable, Cache.Cache> =>
  Layer.effect(
    Cache.Cache,
    Effect.gen(function* () {
      const local = yield* Cache.Cache
      const { default: pg } = yield* Effect.promise(() => import("pg"))
      const context = yield* Effect.context<never>()
      const run = Effect.runForkWith(context)
      const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
      const state: { client: InstanceType<typeof pg.Client> | undefined; closed: boolean } = {
        client: undefined,
        closed: false,
      }

      const deliver = (payload: string | undefined) => {
        try {
          const { channel, message: text } = JSON.parse(payload ?? "") as { channel: string; message: string }
          if (typeof channel === "string" && typeof text === "string") run(Effect.ignore(local.publish(channel, text)))
        } catch {
          // Not ours: another program on the channel.
        }
      }

      const connect = async (): Promise<void> => {
        const client = new pg.Client({ connectionString: url, application_name: "coffer-listen", keepAlive: true })
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

      return Cache.Cache.of({
        ...local,
        publish: (channel, text) =>
          Effect.tryPromise({
            try: async () => {
              const client = state.client
              if (client === undefined) throw new Error("not connected")
              await client.query("select pg_notify($1, $2)", [CHANNEL, JSON.stringify({ channel, message: text })])
            },
            catch: (error) =>
              new StoreUnavailable({ store: "database", message: `Postgres NOTIFY failed: ${message(error)}` }),
          }),
      })
    }),
  )
