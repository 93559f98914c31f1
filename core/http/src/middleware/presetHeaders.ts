/**
 * Headers every response carries, set before the route runs. A response the route makes through the context
 * (`c.json`, `c.body`) is then born with them, and nothing touches it afterwards: setting a header on a finished
 * response makes Hono copy it, which forces @hono/node-server to build a full web `Response` instead of writing
 * its light one straight to the socket (a fifth of the CPU of a token-checked read).
 *
 * A response made outside the context (`new Response`, as the web app's files are) does not inherit prepared
 * headers, so after the route each header it lacks is added to it, as a middleware running after `next()` would.
 * Reading a light response's headers does not build the full one.
 */
import type { Context, Next } from "hono"

export type HeaderList = ReadonlyArray<readonly [name: string, value: string]>

export const withPresetHeaders = async (c: Context, next: Next, headers: HeaderList): Promise<void> => {
  for (const [name, value] of headers) c.header(name, value)
  await next()
  for (const [name, value] of headers) if (!c.res.headers.has(name)) c.header(name, value)
}
