/** The package version, reported by `GET /api/instance` and `GET /api/_ui/v1/instance`. */
import manifest from "../package.json" with { type: "json" }

export const version: string = manifest.version
