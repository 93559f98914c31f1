/** The signed-in person, known app-wide once `/api/auth/me` answered. */
import type { User } from "../api/secrets.js"
import { sessionContext } from "../ui/session.js"

export const { Context: SessionContext, useSession } = sessionContext<User>()
