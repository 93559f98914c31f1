/**
 * What every route's query string must keep, checked before the route reads any of it.
 *
 * A NUL names nothing a store can hold: Postgres text cannot hold one, and refuses a lookup by one with an error
 * rather than finding nothing. A path with a NUL is matched as no route's (`../app/router.ts`); a query value with
 * one (`?environment=%00`, the audit log's filters) is refused with 400 naming its parameter, so that no filter,
 * now or added later, asks a store about it. A parameter a route takes, given twice, is refused the same way.
 */
import { BadRequest } from "@coffer/kernel"
import type { Context } from "hono"

/** The first parameter whose name or value holds a NUL, or `undefined`; the string is read only when one may. */
const nulParameter = (url: string): string | undefined => {
  const start = url.indexOf("?")
  if (start === -1 || !url.includes("%00", start)) return undefined
  for (const [name, value] of new URLSearchParams(url.slice(start))) {
    if (name.includes("\u0000") || value.includes("\u0000")) return name
  }
  return undefined
}

/**
 * The first of `names` given more than once, or `undefined`. Which copy a route would read is the framework's
 * choice (the first), so `?expectedVersion=5&expectedVersion=1` would check against one and look, to a reader of the
 * URL, like the other: refused instead, as a value that means nothing is.
 */
const repeatedParameter = (url: string, names: ReadonlySet<string>): string | undefined => {
  const start = url.indexOf("?")
  if (start === -1 || names.size === 0) return undefined
  const seen = new Set<string>()
  for (const [name] of new URLSearchParams(url.slice(start))) {
    if (!names.has(name)) continue
    if (seen.has(name)) return name
    seen.add(name)
  }
  return undefined
}

/**
 * The 400 for a query string a route must not read, or `undefined` when it may: a NUL anywhere in it, or one of
 * the route's own parameters (`names`) given twice.
 */
export const queryProblem = (c: Context, names: ReadonlySet<string> = new Set()): BadRequest | undefined => {
  const nul = nulParameter(c.req.url)
  if (nul !== undefined) {
    return new BadRequest({ message: `Query parameter ${JSON.stringify(nul)} must not contain a NUL character` })
  }
  const repeated = repeatedParameter(c.req.url, names)
  return repeated === undefined
    ? undefined
    : new BadRequest({ message: `Query parameter ${JSON.stringify(repeated)} is given more than once` })
}
