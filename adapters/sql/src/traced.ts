/**
 * A span per store call (issue 16, traces): every method of a store that returns an effect runs under a span named
 * `<Port>.<method>` (`SchemaStore.findTokenByHash`), so that a trace shows each request's use case and, under it,
 * what it asked of the database. One wrapper for every SQL store, rather than a span written into each method.
 *
 * The span is made only when tracing is on (`spanned`, `@coffer/kernel`): `Effect.withSpan` costs about 20 µs even
 * when tracing is off, which on a secret read of five store calls was more than the database's own share (issue 10).
 */
import { spanned } from "@coffer/kernel"
import * as Effect from "effect/Effect"

export const traced = <S extends object>(port: string, service: S): S =>
  Object.fromEntries(
    Object.entries(service).map(([name, member]) => [
      name,
      typeof member === "function"
        ? (...args: ReadonlyArray<unknown>) => {
            const result: unknown = member(...args)
            return Effect.isEffect(result) ? spanned(`${port}.${name}`, { kind: "client" })(result) : result
          }
        : member,
    ]),
  ) as S
