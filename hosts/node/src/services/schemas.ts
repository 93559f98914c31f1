/**
 * The Schemas service's own layers (its stores and caches), on top of the shared infrastructure.
 */
import type { SchemasServices } from "@coffer/http"
import { Layer } from "effect"
import type { Infrastructure } from "../layers.js"
import type { HostSettings } from "../settings.js"

export const schemasLayer = (_settings: HostSettings): Layer.Layer<SchemasServices, never, Infrastructure> =>
  Layer.empty
