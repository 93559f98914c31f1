/**
 * What every route's query string must keep, checked before the route reads any of it.
 *
 * A NUL names nothing a store can hold: Postgres text cannot hold one, and refuses a lookup by one with an error
 * rather than finding nothing. A path with a NUL is matched as no route's (`../app/router.ts`); a query value with
 * one (`?environment=%00`, the audit log's filters) is refused with 400 naming its parameter, so that no filter,
 * now or added later, asks a store about it.
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

/** The 400 for a query string a route must not read, or `undefined` when it may. */
export const queryProblem = (c: Context): BadRequest | undefined => {
  const name = nulParameter(c.req.url)
  return name === undefined
    ? undefined
    : new BadRequest({ message: `Query parameter ${JSON.stringify(name)} must not contain a NUL character` })
}
