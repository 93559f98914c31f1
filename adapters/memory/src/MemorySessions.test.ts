/**
 * The in-memory session store against the Sessions contract. The dump is every session handed to the stores
 * and still held: the memory store keeps exactly those objects, nothing else.
 */
import { sessionsSuite } from "@coffer/contract"
import type { Sessions } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { MemorySessions } from "./index.js"

sessionsSuite("memory", () =>
  Effect.sync(() => {
    const inserted: Array<Sessions.Session> = []
    const recording = (store: Sessions.SessionStore): Sessions.SessionStore => ({
      ...store,
      insert: (session) => Effect.tap(store.insert(session), () => Effect.sync(() => void inserted.push(session))),
    })
    const stores = { schemas: recording(MemorySessions.makeStore()), secrets: recording(MemorySessions.makeStore()) }
    return {
      store: (service) => stores[service],
      // The memory store cannot fail; a failure here would be a bug worth a defect.
      dump: Effect.orDie(
        Effect.filter(inserted, (session) =>
          Effect.map(Effect.all([stores.schemas.find(session.id), stores.secrets.find(session.id)]), (found) =>
            found.some((row) => row !== undefined),
          ),
        ),
      ),
    }
  }),
)
