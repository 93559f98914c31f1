/**
 * Environments of a project (seed 001 §4 "Environments"). Names follow `domain/names.ts`; deleting one removes its
 * secrets and all their history.
 */
import { Clock, Random } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { type Access, type Actor, reachFor } from "../access.js"
import { parseEnvironmentName } from "../domain/names.js"
import { byStage, sorted } from "../domain/order.js"
import { EnvironmentNotFound } from "../errors.js"
import { SecretStore } from "../SecretStore.js"
import { environmentView } from "../views.js"
import { auditRecord } from "./audit.js"

export const environmentNotFound = () => new EnvironmentNotFound()

/**
 * The environment named `name` in the reached project, or 404. Names in paths are looked up as given, not
 * checked against today's rules, so data imported from an earlier implementation stays reachable.
 */
export const findEnvironment = Effect.fnUntraced(function* (access: Access, name: string) {
  const store = yield* SecretStore
  const environment = yield* store.findEnvironment(access.project.id, name)
  if (environment === undefined) return yield* environmentNotFound()
  return environment
})

export const listEnvironments = Effect.fn("Secrets.listEnvironments")(function* (actor: Actor, slug: string) {
  const access = yield* reachFor(actor, slug, "read")
  const store = yield* SecretStore
  const environments = sorted(yield* store.listEnvironments(access.project.id), byStage)
  return { environments: environments.map(environmentView) }
})

export const createEnvironment = Effect.fn("Secrets.createEnvironment")(function* (
  actor: Actor,
  slug: string,
  input: { readonly name: string },
) {
  const access = yield* reachFor(actor, slug, "writeSecrets")
  const name = yield* Effect.fromResult(parseEnvironmentName(input.name))
  const store = yield* SecretStore
  const environment = {
    id: yield* Random.Random.use((random) => random.id),
    projectId: access.project.id,
    name,
    createdAt: yield* Clock.Clock.use((clock) => clock.now),
  }
  const audit = yield* auditRecord(actor, access.project.id, environment.id, {
    action: "environment.created",
    environment: name,
  })
  yield* store.createEnvironment({ environment, audit })
  return { environment: environmentView(environment) }
})

export const deleteEnvironment = Effect.fn("Secrets.deleteEnvironment")(function* (
  actor: Actor,
  slug: string,
  name: string,
) {
  const access = yield* reachFor(actor, slug, "writeSecrets")
  const environment = yield* findEnvironment(access, name)
  const store = yield* SecretStore
  const audit = yield* auditRecord(actor, access.project.id, environment.id, {
    action: "environment.deleted",
    environment: environment.name,
  })
  if (!(yield* store.deleteEnvironment({ environmentId: environment.id, audit }))) {
    return yield* environmentNotFound()
  }
  return { ok: true as const }
})
