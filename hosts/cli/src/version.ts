/** The package version, printed by `coffer --version`. */
import manifest from "../package.json" with { type: "json" }

export const version: string = manifest.version
