/**
 * The one way the apps talk to their service: same-origin `fetch` with the session cookie, JSON in and out, and
 * every refusal turned into an `ApiError` whose sentence can be shown where the person acted (issue 12 §11).
 * A 401 on anything but the sign-in calls also tells the app, which sends the person to sign in and back, unless
 * the page holds typed input that leaving would lose (`keepPageOnSessionEnd`). Once the app knows the signed-in
 * person is no longer the one the page was loaded for (`sessionWatch.ts`: signed out, or someone else signed in, in
 * another tab), nothing is sent and no answer is handed to the page (`refuseRequests`). Every request also names the
 * page's person (`Coffer-Expected-User`, `expectUser`), so the service itself refuses one sent before the tab heard
 * of the change (412): nothing is done as someone the page does not show, even in that instant.
 */

export class ApiError extends Error {
  constructor(
    /** The HTTP status; 0 when the server could not be reached. */
    readonly status: number,
    message: string,
    /** Seconds to wait, from `Retry-After` on 429. */
    readonly retryAfter?: number,
    /** The whole JSON body of the refusal, for answers that carry more than `error` (a 409's `blockedBy`). */
    readonly body?: unknown,
  ) {
    super(message)
  }
}

/** How a person may sign in, as both services' instance descriptions say it. */
export interface SignInOptions {
  /** The identity provider's button: its name and where it starts the sign-in; `null` when none is set up. */
  readonly oidc: { readonly name: string; readonly url: string } | null
  /** The development login (development mode only). */
  readonly development: boolean
}

type Listener = () => void
const unauthorizedListeners = new Set<Listener>()

/** Called when a request finds the session gone (401); the app redirects to the sign-in page. */
export const onUnauthorized = (listener: Listener): (() => void) => {
  unauthorizedListeners.add(listener)
  return () => unauthorizedListeners.delete(listener)
}

/**
 * Why every request is refused: the page shows one person while the browser's session is now another's (or
 * nobody's). A write sent then would be made as someone the page does not show, and data read would be theirs.
 */
export class SessionChangedError extends Error {}

let refusal: SessionChangedError | undefined

/** The header naming the person a request is made for; the service refuses it for anyone else's session. */
const EXPECTED_USER_HEADER = "Coffer-Expected-User"
let expectedUser: string | undefined

/** The page's person (a user id), named on every request from now on; `undefined` while nobody is signed in. */
export const expectUser = (userId: string | undefined): void => {
  expectedUser = userId
}

const someoneElseListeners = new Set<Listener>()

/**
 * Called when the service refuses a request because someone else's session came with it (412): another tab signed
 * someone else in, and this one has not heard yet. The session watch then asks who it is.
 */
export const onSignedInAsSomeoneElse = (listener: Listener): (() => void) => {
  someoneElseListeners.add(listener)
  return () => someoneElseListeners.delete(listener)
}

const forbiddenListeners = new Set<Listener>()

/**
 * Called when the service refuses a change as not allowed (403): what the person may do has changed since the page
 * was drawn (a role lowered elsewhere), so a page that offered the change reads the person's rights again. Reads
 * refused so are not told: a page reloading on its own refused read would never stop.
 */
export const onChangeForbidden = (listener: Listener): (() => void) => {
  forbiddenListeners.add(listener)
  return () => forbiddenListeners.delete(listener)
}

const NOT_DONE =
  "Nothing was done: someone else signed in in another tab or window since this page was loaded. Reload to " +
  "continue as them."

const SENT_BEFORE_CHANGE =
  "This was sent just before this tab noticed that someone else signed in (or you signed out) in another tab or " +
  "window: reload to see whether it was carried out."
let pendingCheck: Promise<unknown> | undefined

/**
 * From now on every request, except the session checks themselves, is refused with `reason` (a sentence saying
 * who is signed in now), and an answer arriving meanwhile is not handed to the page; `undefined` lifts that (the
 * page's person is signed in again).
 */
export const refuseRequests = (reason: string | undefined): void => {
  refusal = reason === undefined ? undefined : new SessionChangedError(reason)
}

/** How long requests wait for a check that does not answer (a stalled network): then they go, as before it. */
const HOLD_MAX_MS = 10_000

/** A check of who is signed in is under way: requests wait for its answer (at most `HOLD_MAX_MS`) before they go. */
export const holdRequestsFor = (check: Promise<unknown>): void => {
  const held = Promise.race([check, new Promise((resolve) => setTimeout(resolve, HOLD_MAX_MS))]).then(
    () => undefined,
    () => undefined,
  )
  pendingCheck = held
  void held.then(() => {
    if (pendingCheck === held) pendingCheck = undefined
  })
}

/** How many parts of the page hold typed input that a move to the sign-in page would lose. */
let keepers = 0

/**
 * While something on the page holds typed input that is not saved (a dialog with a value in it), a 401 is not told
 * to the app, which would leave for the sign-in page and lose it: it is the refused request's own answer, shown
 * where the person acted with a way to sign in again in another tab (`Alert`). The session cookie is shared, so
 * the same action then succeeds. The input is never written anywhere to survive a page change. Returns the release.
 */
export const keepPageOnSessionEnd = (): (() => void) => {
  keepers++
  let released = false
  return () => {
    if (released) return
    released = true
    keepers--
  }
}

const retryAfterOf = (response: Response): number | undefined => {
  const raw = response.headers.get("Retry-After")
  const seconds = raw === null ? Number.NaN : Number(raw)
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : undefined
}

/** The server's message under what its status means, unless it says so itself ("Project not found"). */
const labelled = (label: string, message: string) =>
  message.toLowerCase().includes(label.toLowerCase()) ? message : `${label}: ${message}`

/** What to say for a refusal; the server's own message when it gave one, else what the status means. */
export const describeError = (error: unknown): string => {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error)
  switch (error.status) {
    case 0:
      return "The server could not be reached. Check your connection and try again."
    case 401:
      return "Your session ended."
    case 429:
      return `Too many attempts. Wait ${error.retryAfter ?? 60} seconds, then try again.`
    case 503:
      return `The service is unavailable right now (${error.message}). Try again in a moment.`
    case 413:
      return labelled("Too large", error.message)
    case 403:
      return labelled("Not allowed", error.message)
    case 404:
      return labelled("Not found", error.message)
    default:
      return error.message
  }
}

export interface RequestOptions {
  readonly body?: unknown
  readonly signal?: AbortSignal
  /** A 401 is this call's own answer (sign-in calls), not a lost session. */
  readonly quietUnauthorized?: boolean
  /** A check of who is signed in (`sessionWatch.ts`), sent even while other requests are refused. */
  readonly sessionCheck?: boolean
}

const send = async (method: string, path: string, options: RequestOptions): Promise<Response> => {
  if (options.sessionCheck !== true) {
    if (pendingCheck !== undefined) await pendingCheck
    if (refusal !== undefined) throw refusal
  }
  let response: Response
  try {
    const headers: Record<string, string> =
      options.body === undefined ? { Accept: "application/json" } : { "Content-Type": "application/json" }
    // A session check asks who is signed in, whoever that is; every other request is made for the page's person.
    // Encoded: a header value must be Latin-1, and an identity provider's subject may not be.
    if (expectedUser !== undefined && options.sessionCheck !== true) {
      headers[EXPECTED_USER_HEADER] = encodeURIComponent(expectedUser)
    }
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    })
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause
    throw new ApiError(0, "Network error")
  }
  // Refused by the service for someone else's session: nothing was done. The watch finds out who it is (and shows
  // the notice) before the page hears why.
  if (response.status === 412 && options.sessionCheck !== true) {
    for (const listener of someoneElseListeners) listener()
    if (pendingCheck !== undefined) await pendingCheck
    throw new SessionChangedError(NOT_DONE)
  }
  // Answered for someone else: the person changed while the request was under way. It was sent, so it may have
  // been carried out: the sentence says so rather than "nothing was sent".
  if (options.sessionCheck !== true && refusal !== undefined) throw new SessionChangedError(SENT_BEFORE_CHANGE)
  if (response.ok) return response
  let message = response.statusText || `HTTP ${response.status}`
  let body: { error?: unknown } | undefined
  try {
    body = (await response.json()) as { error?: unknown }
    if (typeof body.error === "string") message = body.error
  } catch {
    // Not JSON (a proxy's page): the status text stands.
  }
  if (response.status === 401 && options.quietUnauthorized !== true && keepers === 0) {
    for (const listener of unauthorizedListeners) listener()
  }
  if (response.status === 403 && method !== "GET") {
    for (const listener of forbiddenListeners) listener()
  }
  throw new ApiError(response.status, message, retryAfterOf(response), body)
}

export const request = async <T>(method: string, path: string, options: RequestOptions = {}): Promise<T> =>
  (await (await send(method, path, options)).json()) as T

export const get = <T>(path: string, options?: RequestOptions) => request<T>("GET", path, options)
/** A file the service answers (an export), refused like any other call. */
export const getFile = async (path: string): Promise<Blob> => (await send("GET", path, {})).blob()
export const post = <T>(path: string, body?: unknown, options?: RequestOptions) =>
  request<T>("POST", path, { ...options, body: body ?? {} })
export const patch = <T>(path: string, body: unknown) => request<T>("PATCH", path, { body })
export const del = <T = { ok: true }>(path: string) => request<T>("DELETE", path)

/** A path segment, encoded (keys may hold `.` and `-`, names never `/`, but nothing is assumed). */
export const segment = (value: string) => encodeURIComponent(value)
