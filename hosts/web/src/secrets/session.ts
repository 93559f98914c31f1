/** The signed-in person, known app-wide once `/api/auth/me` answered. */
import { createContext } from "preact"
import { useContext } from "preact/hooks"
import type { User } from "../api/secrets.js"

export interface Session {
  readonly user: User | undefined
  readonly setUser: (user: User | undefined) => void
}

export const SessionContext = createContext<Session>({ user: undefined, setUser: () => undefined })

export const useSession = () => useContext(SessionContext)
