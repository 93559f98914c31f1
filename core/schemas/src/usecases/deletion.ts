/**
 * What blocks a deletion (seed 000 §3); the deletion's audit entry is appended through `./audit.ts`.
 *
 * A deletion removes versions (one, several left out of a `POST /api/{platform}` list, or all of a platform's),
 * with their schemas and history. It is refused with 409 while a schema that would survive it still extends one
 * of them: a reference whose current selection is a removed version. For a platform deletion the survivors are
 * the schemas of other platforms, exactly as the seed says. For a version deletion a schema of the same platform
 * that extends the removed version (`a/2.0.0` extending `a/1.0.0`) blocks too: it would be left pointing at
 * nothing, with an output no save could reproduce.
 *
 * Because no survivor selects a removed version, removing versions changes no survivor's selection (`latest`
 * and ranges pick the highest match, which stays), so a deletion needs no cascade.
 */
import type { StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { parseReference } from "../domain/extendsRef.js"
import type { SchemaId } from "../domain/schemaId.js"
import { selectVersion } from "../domain/select.js"
import { compareVersions } from "../domain/version.js"
import { type BlockingSchema, DeletionBlocked } from "../errors.js"
import { SchemaStore } from "../SchemaStore.js"

/** The schemas outside `removed` that still extend one of `removed`, sorted by platform and version. */
export const blockersOf = Effect.fnUntraced(function* (
  platform: string,
  versions: ReadonlyArray<string>,
  removed: ReadonlyArray<string>,
  survives: (dependent: SchemaId) => boolean,
): Effect.fn.Return<ReadonlyArray<BlockingSchema>, StoreUnavailable, SchemaStore> {
  const edges = yield* SchemaStore.use((store) => store.dependentsOf([platform]))
  const gone = new Set(removed)
  // Many edges share one reference (`base/^1.0.0` from every dependent): each is selected once.
  const selections = new Map<string, string | undefined>()
  const selectionOf = (raw: string): string | undefined => {
    if (!selections.has(raw)) {
      const reference = parseReference(raw)
      selections.set(
        raw,
        Result.isFailure(reference) || reference.success.platform !== platform
          ? undefined
          : Result.getOrUndefined(selectVersion(reference.success, versions)),
      )
    }
    return selections.get(raw)
  }
  const blockers: Array<BlockingSchema> = []
  for (const edge of edges) {
    if (!survives(edge.dependent)) continue
    const selected = selectionOf(edge.reference)
    if (selected !== undefined && gone.has(selected)) {
      blockers.push({ platform: edge.dependent.platform, version: edge.dependent.version, extends: edge.reference })
    }
  }
  return blockers.sort(
    (a, b) =>
      (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : compareVersions(a.version, b.version)) ||
      (a.extends < b.extends ? -1 : a.extends > b.extends ? 1 : 0),
  )
})

/** Fails with 409 when anything blocks; `target` words the message. */
export const refuseIfBlocked = (
  target: string,
  blockers: ReadonlyArray<BlockingSchema>,
): Effect.Effect<void, DeletionBlocked> =>
  blockers.length === 0 ? Effect.void : Effect.fail(new DeletionBlocked({ target, blockedBy: blockers }))
