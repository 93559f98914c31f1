/**
 * The Secrets service's own layers (its stores), on top of the shared infrastructure.
 */
import type { SecretsServices } from "@coffer/http"
import { Layer } from "effect"
import type { Infrastructure } from "../layers.js"
import type { HostSettings } from "../settings.js"

export const secretsLayer = (
  _settings: HostSettings,
): Layer.Layer<Exclude<SecretsServices, Infrastructure>, never, Infrastructure> => Layer.empty
