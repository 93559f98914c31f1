/**
 * The signed-in person as an app knows it (its own answer to "who is this": a user, a session with permissions),
 * known app-wide once the service answered. `undefined` while signed out.
 */
import { type Context, createContext } from "preact"
import { useContext } from "preact/hooks"

export interface Session<S> {
  readonly current: S | undefined
  readonly setCurrent: (session: S | undefined) => void
}

/** An app's session context and the hook its pages read it with. */
export const sessionContext = <S>(): {
  readonly Context: Context<Session<S>>
  readonly useSession: () => Session<S>
} => {
  const Context = createContext<Session<S>>({ current: undefined, setCurrent: () => undefined })
  return { Context, useSession: () => useContext(Context) }
}
