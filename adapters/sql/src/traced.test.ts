import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import { describe, expect, it } from "vitest"
import { traced } from "./traced.js"

const recordingTracer = () => {
  const names: Array<string> = []
  const tracer = Tracer.make({
    span: (options) => {
      names.push(options.name)
      return new Tracer.NativeSpan(options)
    },
  })
  return { names, layer: Layer.succeed(Tracer.Tracer)(tracer) }
}

const store = traced("ExampleStore", {
  find: (id: string) => Effect.succeed(`found ${id}`),
  name: "not a method",
})

describe("traced", () => {
  it("runs each store call under a span named after the port and method when tracing is on", async () => {
    const recording = recordingTracer()
    const found = await Effect.runPromise(store.find("a").pipe(Effect.provide(recording.layer)))
    expect(found).toBe("found a")
    expect(recording.names).toEqual(["ExampleStore.find"])
    expect(store.name).toBe("not a method")
  })

  it("makes no span at all when tracing is off", async () => {
    const recording = recordingTracer()
    const off = Layer.merge(recording.layer, Layer.succeed(References.TracerEnabled)(false))
    expect(await Effect.runPromise(store.find("b").pipe(Effect.provide(off)))).toBe("found b")
    expect(recording.names).toEqual([])
  })
})
