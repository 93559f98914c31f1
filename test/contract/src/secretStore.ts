/**
 * The SecretStore contract: the rules written on `@coffer/secrets`' SecretStore port (atomic writes with their
 * audit record, audited reads, contiguous versions under concurrency, cascades, uniqueness, order, invites,
 * vanished parents), as tests every adapter runs.
 *
 * Lists come back in any order (the use cases sort them with `Order`), so the suite sorts before it compares;
 * what a store must not do is lose or invent a row, whatever its collation. Only the audit log is ordered by the
 * store, because it is answered a page at a time.
 *
 * `makeLayer` is built once per test and must start empty. It provides the Accounts port over the same storage
 * as the store, because SQL stores refer to accounts with foreign keys: the suite creates its people through it.
 * An adapter that can make its audit log refuse writes passes `breakAuditLog`, and the atomicity rules are then
 * checked against a real failure; the memory store writes in one synchronous step that cannot fail halfway, so
 * it has nothing to break and those tests are switched off for it by name.
 */
import {
  Accounts,
  type AuditAction,
  EnvironmentGone,
  isPending,
  Order,
  ProjectGone,
  SECRET_ACTIONS,
  SecretStore,
} from "@coffer/secrets"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"

export interface SecretStoreSuiteOptions<R> {
  /** Makes every later audit write fail, as a full disk or a revoked grant would. */
  readonly breakAuditLog?: Effect.Effect<void, unknown, R>
}

type Store = SecretStore.SecretStore["Service"]

const T0 = Date.UTC(2026, 0, 31, 12, 0, 0)
const at = (offsetMs = 0) => T0 + offsetMs

let sequence = 0
const nextId = (prefix: string) => `${prefix}-${(++sequence).toString().padStart(6, "0")}`

const audit = (
  projectId: string,
  action: AuditAction,
  targetKey: string,
  overrides: Partial<SecretStore.AuditRecord> = {},
): SecretStore.AuditRecord => ({
  id: nextId("audit"),
  projectId,
  environmentId: null,
  userId: "someone",
  userEmail: "someone@example.com",
  action,
  targetKey,
  ipAddress: "192.0.2.1",
  apiKey: null,
  createdAt: at(),
  ...overrides,
})

/** The `_tag` of an exit's typed failure, if it failed with one. */
const errorTag = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const error = Cause.findError(exit.cause)
  return error._tag === "Success" ? (error.success as { _tag?: string })._tag : undefined
}

export const secretStoreSuite = <R>(
  name: string,
  makeLayer: () => Layer.Layer<SecretStore.SecretStore | Accounts.Accounts | R, unknown>,
  options: SecretStoreSuiteOptions<R> = {},
) => {
  interface World {
    readonly store: Store
    readonly context: Context.Context<SecretStore.SecretStore | Accounts.Accounts | R>
    /** A new account, for the foreign keys. */
    readonly person: (email?: string) => Effect.Effect<string, unknown>
    /** A project owned by a new person, with the given environments. */
    readonly project: (
      slug: string,
      environments?: ReadonlyArray<string>,
    ) => Effect.Effect<
      {
        readonly project: SecretStore.ProjectRecord
        readonly ownerId: string
        readonly environments: ReadonlyArray<SecretStore.EnvironmentRecord>
      },
      unknown
    >
  }

  const run = <A, E>(test: (world: World) => Effect.Effect<A, E>): Promise<A> =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const context = yield* Layer.build(makeLayer())
          const store = Context.get(context, SecretStore.SecretStore)
          const accounts = Context.get(context, Accounts.Accounts)
          let people = 0
          const person = (email?: string) =>
            Effect.map(
              accounts.create({
                email: email ?? `person${++people}-${nextId("p")}@example.com`,
                issuer: "https://id.example.com",
                subject: nextId("subject"),
              }),
              (user) => user.id,
            )
          const project: World["project"] = (slug, environments = ["development"]) =>
            Effect.gen(function* () {
              const ownerId = yield* person()
              const record: SecretStore.ProjectRecord = {
                id: nextId("project"),
                name: slug,
                slug,
                ownerId,
                createdAt: at(),
                dataKey: `cdk1.0000000000000000.${slug}`,
                dataKeyVersion: 1,
              }
              const envs = environments.map((environment) => ({
                id: nextId("env"),
                projectId: record.id,
                name: environment,
                createdAt: at(),
              }))
              yield* store.createProject({
                project: record,
                environments: envs,
                audit: audit(record.id, "project.created", slug),
              })
              return { project: record, ownerId, environments: envs }
            })
          return yield* test({ store, context, person, project })
        }),
      ),
    )

  /** Writes `count` versions of `key` one after another, as the use case would. */
  const writeVersions = (
    store: Store,
    environmentId: string,
    projectId: string,
    key: string,
    count: number,
    userId: string,
  ) => {
    const secretId = nextId("secret")
    return Effect.forEach(
      Array.from({ length: count }, (_, i) => i),
      (i) =>
        store.writeSecret({
          environmentId,
          key,
          expectedVersion: i,
          secretId,
          value: `sealed-${key}-${i + 1}`,
          empty: false,
          userId,
          at: at(i),
          audit: audit(projectId, i === 0 ? "secret.created" : "secret.updated", key),
        }),
    )
  }

  /** Makes `userId` a member of the project with `role`, through an invite, as the use cases do. */
  const join = (store: Store, projectId: string, userId: string, role: "write" | "read" = "write") =>
    Effect.gen(function* () {
      const invite = {
        id: nextId("invite"),
        projectId,
        role,
        tokenHash: nextId("hash"),
        createdBy: userId,
        createdAt: at(),
        expiresAt: at(10_000),
        usedAt: null,
      }
      yield* store.createInvite({ invite, audit: audit(projectId, "invite.created", role) })
      yield* store.acceptInvite({
        inviteId: invite.id,
        userId,
        at: at(),
        audit: audit(projectId, "member.joined", "x"),
      })
    })

  describe(`SecretStore contract: ${name}`, () => {
    it("creates a project with its environments and the owner as member; finds it only for members", () =>
      run(({ store, project, person }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha", ["production", "development"])
          const stranger = yield* person()
          expect(yield* store.findProject("alpha", ownerId)).toEqual({ project: alpha, role: "owner" })
          expect(yield* store.findProjectById(alpha.id, ownerId)).toEqual({ project: alpha, role: "owner" })
          expect(yield* store.findProject("alpha", stranger)).toBeUndefined()
          expect(yield* store.findProjectById(alpha.id, stranger)).toBeUndefined()
          expect(yield* store.findProject("nope", ownerId)).toBeUndefined()
          expect(Order.sorted(yield* store.listEnvironments(alpha.id), Order.byStage)).toEqual(
            Order.sorted(environments, Order.byStage),
          )
          expect(yield* store.listMembers(alpha.id)).toEqual([{ userId: ownerId, role: "owner", createdAt: at() }])
          expect((yield* store.listAudit({ projectId: alpha.id, limit: 10, offset: 0 })).map((e) => e.action)).toEqual([
            "project.created",
          ])
        }),
      ))

    it("finds a project with one of its environments in one read, only for members", () =>
      run(({ store, project, person }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha", ["production", "development"])
          yield* project("beta", ["staging"])
          const production = environments.find((environment) => environment.name === "production")
          expect(yield* store.findProjectEnvironment("alpha", ownerId, "production")).toEqual({
            access: { project: alpha, role: "owner" },
            environment: production,
          })
          // Another project's environment is not this project's.
          expect(yield* store.findProjectEnvironment("alpha", ownerId, "staging")).toEqual({
            access: { project: alpha, role: "owner" },
            environment: undefined,
          })
          expect(yield* store.findProjectEnvironment("alpha", yield* person(), "production")).toBeUndefined()
          expect(yield* store.findProjectEnvironment("nope", ownerId, "production")).toBeUndefined()
        }),
      ))

    it("finds the secret under a key with its project and environment, in the same read", () =>
      run(({ store, project, person }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha", ["production", "development"])
          const [production, development] = ["production", "development"].map(
            (name) => environments.find((environment) => environment.name === name)!,
          )
          yield* writeVersions(store, production!.id, alpha.id, "API_KEY", 3, ownerId)
          const secret = yield* store.findSecret(production!.id, "API_KEY")
          expect(secret?.version).toBe(3)
          expect(yield* store.findProjectEnvironment("alpha", ownerId, "production", "API_KEY")).toEqual({
            access: { project: alpha, role: "owner" },
            environment: production,
            secret,
          })
          // The key in another environment of the project, a key that does not exist, an environment that does not.
          expect(
            (yield* store.findProjectEnvironment("alpha", ownerId, "development", "API_KEY"))?.secret,
          ).toBeUndefined()
          expect(yield* store.findProjectEnvironment("alpha", ownerId, "development", "API_KEY")).toEqual({
            access: { project: alpha, role: "owner" },
            environment: development,
            secret: undefined,
          })
          expect((yield* store.findProjectEnvironment("alpha", ownerId, "production", "OTHER"))?.secret).toBeUndefined()
          expect(yield* store.findProjectEnvironment("alpha", ownerId, "staging", "API_KEY")).toEqual({
            access: { project: alpha, role: "owner" },
            environment: undefined,
            secret: undefined,
          })
          // Without the key, no secret; for someone outside the project, nothing at all.
          expect((yield* store.findProjectEnvironment("alpha", ownerId, "production"))?.secret).toBeUndefined()
          expect(yield* store.findProjectEnvironment("alpha", yield* person(), "production", "API_KEY")).toBeUndefined()
        }),
      ))

    it("refuses a second project with the same slug, writing nothing (rules 1 and 5)", () =>
      run(({ store, project, person }) =>
        Effect.gen(function* () {
          yield* project("alpha")
          const ownerId = yield* person()
          const clash = {
            id: nextId("project"),
            name: "x",
            slug: "alpha",
            ownerId,
            createdAt: at(),
            dataKey: "k",
            dataKeyVersion: 1,
          }
          const error = yield* Effect.flip(
            store.createProject({
              project: clash,
              environments: [{ id: nextId("env"), projectId: clash.id, name: "development", createdAt: at() }],
              audit: audit(clash.id, "project.created", "alpha"),
            }),
          )
          expect(error._tag).toBe("ProjectExists")
          expect(yield* store.findProjectById(clash.id, ownerId)).toBeUndefined()
          expect(yield* store.listProjects(ownerId)).toEqual([])
          expect(yield* store.listEnvironments(clash.id)).toEqual([])
          expect(yield* store.listAudit({ projectId: clash.id, limit: 10, offset: 0 })).toEqual([])
        }),
      ))

    it("lists a person's projects, with their role in each", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const zed = yield* project("zed")
          const alpha = yield* project("alpha")
          const invite = {
            id: nextId("invite"),
            projectId: zed.project.id,
            role: "write" as const,
            tokenHash: nextId("hash"),
            createdBy: zed.ownerId,
            createdAt: at(),
            expiresAt: at(1000),
            usedAt: null,
          }
          yield* store.createInvite({ invite, audit: audit(zed.project.id, "invite.created", "write") })
          yield* store.acceptInvite({
            inviteId: invite.id,
            userId: alpha.ownerId,
            at: at(1),
            audit: audit(zed.project.id, "member.joined", "x:write"),
          })
          const listed = Order.sorted(yield* store.listProjects(alpha.ownerId), Order.bySlug)
          expect(listed.map(({ project, role }) => [project.slug, role])).toEqual([
            ["alpha", "owner"],
            ["zed", "write"],
          ])
        }),
      ))

    it("deletes a project with everything in it but its audit log (rule 4)", () =>
      run(({ store, project, person }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha")
          const env = environments[0]!
          yield* writeVersions(store, env.id, alpha.id, "K", 2, ownerId)
          const member = yield* person()
          const invite = {
            id: nextId("invite"),
            projectId: alpha.id,
            role: "read" as const,
            tokenHash: nextId("hash"),
            createdBy: ownerId,
            createdAt: at(),
            expiresAt: at(1000),
            usedAt: null,
          }
          yield* store.createInvite({ invite, audit: audit(alpha.id, "invite.created", "read") })
          yield* store.acceptInvite({
            inviteId: invite.id,
            userId: member,
            at: at(),
            audit: audit(alpha.id, "member.joined", "m:read"),
          })
          const pending = { ...invite, id: nextId("invite"), tokenHash: nextId("hash") }
          yield* store.createInvite({ invite: pending, audit: audit(alpha.id, "invite.created", "read") })
          const apiKey = apiKeyRecord(alpha.id, member)
          yield* store.createApiKey({ apiKey, audit: audit(alpha.id, "api_key.created", "k") })
          const secret = yield* store.findSecret(env.id, "K")

          expect(
            yield* store.deleteProject({ projectId: alpha.id, audit: audit(alpha.id, "project.deleted", "alpha") }),
          ).toBe(true)
          expect(yield* store.findProject("alpha", ownerId)).toBeUndefined()
          expect(yield* store.listEnvironments(alpha.id)).toEqual([])
          expect(yield* store.findEnvironment(alpha.id, env.name)).toBeUndefined()
          expect(yield* store.listSecrets(env.id)).toEqual([])
          expect(yield* store.listVersions(secret!.id)).toEqual([])
          expect(yield* store.listMembers(alpha.id)).toEqual([])
          expect(yield* store.findInvite(pending.tokenHash)).toBeUndefined()
          expect(yield* store.findApiKey(apiKey.id)).toBeUndefined()
          expect(yield* store.listDataKeys).toEqual([])
          const log = yield* store.listAudit({ projectId: alpha.id, limit: 50, offset: 0 })
          expect(log[0]?.action).toBe("project.deleted")
          expect(log.length).toBeGreaterThan(4)
          expect(
            yield* store.deleteProject({ projectId: alpha.id, audit: audit(alpha.id, "project.deleted", "alpha") }),
          ).toBe(false)
          // Nothing new is written under the deleted project, and no audit record either (rules 1 and 8).
          const orphans = [
            store.createInvite({
              invite: { ...invite, id: nextId("invite"), tokenHash: nextId("hash") },
              audit: audit(alpha.id, "invite.created", "read"),
            }),
            store.createEnvironment({
              environment: { id: nextId("env"), projectId: alpha.id, name: "qa", createdAt: at() },
              audit: audit(alpha.id, "environment.created", "qa"),
            }),
          ]
          for (const write of orphans) expect(yield* Effect.flip(write)).toBeInstanceOf(ProjectGone)
          // A key's parent is its holder's membership, gone with the project.
          const orphanKey = apiKeyRecord(alpha.id, ownerId)
          expect(yield* store.createApiKey({ apiKey: orphanKey, audit: audit(alpha.id, "api_key.created", "k") })).toBe(
            false,
          )
          expect(yield* store.findApiKey(orphanKey.id)).toBeUndefined()
          expect(yield* store.listAudit({ projectId: alpha.id, limit: 50, offset: 0 })).toEqual(log)
          // The slug is free again.
          yield* project("alpha")
        }),
      ))

    it("lists members with their joining time; changes and removes members, their keys going with them", () =>
      run(({ store, project, person }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId } = yield* project("alpha")
          const joined: Array<string> = []
          for (const [index, role] of (["write", "read"] as const).entries()) {
            const userId = yield* person()
            joined.push(userId)
            const invite = {
              id: nextId("invite"),
              projectId: alpha.id,
              role,
              tokenHash: nextId("hash"),
              createdBy: ownerId,
              createdAt: at(),
              expiresAt: at(10_000),
              usedAt: null,
            }
            yield* store.createInvite({ invite, audit: audit(alpha.id, "invite.created", role) })
            yield* store.acceptInvite({
              inviteId: invite.id,
              userId,
              at: at(10 - index),
              audit: audit(alpha.id, "member.joined", `x:${role}`),
            })
          }
          // The second joined earlier (at 9 ms) than the first (at 10 ms).
          expect(Order.sorted(yield* store.listMembers(alpha.id), Order.membersOrder)).toEqual([
            { userId: ownerId, role: "owner", createdAt: at() },
            { userId: joined[1], role: "read", createdAt: at(9) },
            { userId: joined[0], role: "write", createdAt: at(10) },
          ])
          const change = (userId: string) =>
            store.setMemberRole({
              projectId: alpha.id,
              userId,
              role: "read",
              audit: audit(alpha.id, "member.updated", "x"),
            })
          expect(yield* change(joined[0]!)).toBe(true)
          expect(yield* change("nobody")).toBe(false)
          expect((yield* store.findProject("alpha", joined[0]!))?.role).toBe("read")
          expect((yield* store.findProjectEnvironment("alpha", joined[0]!, "development"))?.access.role).toBe("read")
          expect((yield* store.findProject("alpha", ownerId))?.role).toBe("owner")

          const keep = apiKeyRecord(alpha.id, joined[1]!)
          const gone = apiKeyRecord(alpha.id, joined[0]!)
          yield* store.createApiKey({ apiKey: keep, audit: audit(alpha.id, "api_key.created", "k") })
          yield* store.createApiKey({ apiKey: gone, audit: audit(alpha.id, "api_key.created", "k") })
          const alsoGone = apiKeyRecord(alpha.id, joined[0]!)
          yield* store.createApiKey({ apiKey: alsoGone, audit: audit(alpha.id, "api_key.created", "k") })
          const remove = (userId: string) =>
            store.removeMember({
              projectId: alpha.id,
              userId,
              audit: audit(alpha.id, "member.removed", "x"),
              keyAudit: keyAudit(alpha.id),
            })
          expect(yield* remove(joined[0]!)).toBe(true)
          expect(yield* remove(joined[0]!)).toBe(false)
          expect(yield* store.findApiKey(gone.id)).toBeUndefined()
          expect(yield* store.findApiKey(alsoGone.id)).toBeUndefined()
          expect(yield* store.findApiKey(keep.id)).toEqual(keep)
          expect(yield* store.findProject("alpha", joined[0]!)).toBeUndefined()
          // The secret routes' one read refuses a removed member at once, like `findProject`.
          expect(yield* store.findProjectEnvironment("alpha", joined[0]!, "development")).toBeUndefined()
          // Rule 1: each removed key has its record, written with the removal (the second removal wrote nothing).
          const latest = yield* store.listAudit({ projectId: alpha.id, limit: 4, offset: 0 })
          expect(latest.map((e) => e.action)).toEqual([
            "api_key.deleted",
            "api_key.deleted",
            "member.removed",
            "api_key.created",
          ])
          expect(
            latest
              .slice(0, 2)
              .map((e) => e.targetKey)
              .sort(),
          ).toEqual([gone.name, alsoGone.name].sort())
        }),
      ))

    it("keeps invites until used, withdrawn or tidied away, and takes one only while unused (rule 7)", () =>
      run(({ store, project, person }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId } = yield* project("alpha")
          const make = (offset: number, expiresIn = 1000) => ({
            id: nextId("invite"),
            projectId: alpha.id,
            role: "read" as const,
            tokenHash: nextId("hash"),
            createdBy: ownerId,
            createdAt: at(offset),
            expiresAt: at(offset + expiresIn),
            usedAt: null,
          })
          const first = make(0)
          const second = make(1)
          const short = make(2, 10)
          for (const invite of [first, second, short]) {
            yield* store.createInvite({ invite, audit: audit(alpha.id, "invite.created", "read") })
          }
          const pendingAt = (now: number) =>
            Effect.map(store.listInvites(alpha.id), (invites) =>
              Order.sorted(invites, Order.newestFirst)
                .filter((invite) => isPending(invite, now))
                .map((invite) => invite.id),
            )
          expect(yield* pendingAt(at(5))).toEqual([short.id, second.id, first.id])
          expect(yield* pendingAt(at(12))).toEqual([second.id, first.id])
          expect(yield* store.findInvite(first.tokenHash)).toEqual(first)

          // Already in: 409 and the invite stays pending, with nothing written.
          const before = yield* store.listAudit({ projectId: alpha.id, limit: 100, offset: 0 })
          const already = yield* Effect.flip(
            store.acceptInvite({
              inviteId: first.id,
              userId: ownerId,
              at: at(5),
              audit: audit(alpha.id, "member.joined", "x"),
            }),
          )
          expect(already._tag).toBe("AlreadyMember")
          expect((yield* store.findInvite(first.tokenHash))?.usedAt).toBeNull()
          expect(yield* store.listAudit({ projectId: alpha.id, limit: 100, offset: 0 })).toEqual(before)

          const ada = yield* person()
          const joined = yield* store.acceptInvite({
            inviteId: first.id,
            userId: ada,
            at: at(5),
            audit: audit(alpha.id, "member.joined", "x"),
          })
          expect(joined).toEqual(alpha)
          expect((yield* store.findInvite(first.tokenHash))?.usedAt).toBe(at(5))
          expect((yield* store.findProject("alpha", ada))?.role).toBe("read")
          const bob = yield* person()
          const accept = (inviteId: string, when: number) =>
            store.acceptInvite({ inviteId, userId: bob, at: when, audit: audit(alpha.id, "member.joined", "x") })
          expect(yield* accept(first.id, at(6))).toBeUndefined()
          const withdraw = (inviteId: string) =>
            store.deleteInvite({ projectId: alpha.id, inviteId, audit: audit(alpha.id, "invite.deleted", "read") })
          expect(yield* withdraw(first.id)).toBe(false)
          expect(yield* withdraw(second.id)).toBe(true)
          expect(yield* withdraw(second.id)).toBe(false)
          expect(yield* accept(second.id, at(7))).toBeUndefined()
          expect(yield* store.findProject("alpha", bob)).toBeUndefined()

          // Housekeeping takes the used and the expired ones, keeps the pending ones, writes no audit.
          const later = make(20)
          yield* store.createInvite({ invite: later, audit: audit(alpha.id, "invite.created", "read") })
          const audited = yield* store.listAudit({ projectId: alpha.id, limit: 100, offset: 0 })
          expect(yield* store.removeSpentInvites(at(15))).toBe(2)
          expect((yield* store.listInvites(alpha.id)).map((invite) => invite.id)).toEqual([later.id])
          expect(yield* store.removeSpentInvites(at(15))).toBe(0)
          expect(yield* store.listAudit({ projectId: alpha.id, limit: 100, offset: 0 })).toEqual(audited)
        }),
      ))

    it("lets at most one of several concurrent accepts of an invite use it", () =>
      run(({ store, project, person }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId } = yield* project("alpha")
          const invite = {
            id: nextId("invite"),
            projectId: alpha.id,
            role: "write" as const,
            tokenHash: nextId("hash"),
            createdBy: ownerId,
            createdAt: at(),
            expiresAt: at(1000),
            usedAt: null,
          }
          yield* store.createInvite({ invite, audit: audit(alpha.id, "invite.created", "write") })
          const people = yield* Effect.forEach(Array.from({ length: 6 }), () => person())
          const results = yield* Effect.forEach(
            people,
            (userId) =>
              store.acceptInvite({
                inviteId: invite.id,
                userId,
                at: at(1),
                audit: audit(alpha.id, "member.joined", "x"),
              }),
            { concurrency: "unbounded" },
          )
          expect(results.filter((result) => result !== undefined)).toHaveLength(1)
          expect(yield* store.listMembers(alpha.id)).toHaveLength(2)
        }),
      ))

    it("keeps environment names unique per project and deletes an environment with its secrets (rules 4, 5)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha", ["development"])
          const beta = yield* project("beta", ["development"])
          const env = (projectId: string, name: string) => ({ id: nextId("env"), projectId, name, createdAt: at() })
          const clash = yield* Effect.flip(
            store.createEnvironment({
              environment: env(alpha.id, "development"),
              audit: audit(alpha.id, "environment.created", "development"),
            }),
          )
          expect(clash._tag).toBe("EnvironmentExists")
          const qa = env(alpha.id, "qa")
          yield* store.createEnvironment({ environment: qa, audit: audit(alpha.id, "environment.created", "qa") })
          expect(yield* store.findEnvironment(alpha.id, "qa")).toEqual(qa)
          expect(yield* store.findEnvironment(beta.project.id, "qa")).toBeUndefined()
          expect(yield* store.findEnvironment(alpha.id, "QA")).toBeUndefined()

          yield* writeVersions(store, qa.id, alpha.id, "K", 3, ownerId)
          const secret = yield* store.findSecret(qa.id, "K")
          expect(
            yield* store.deleteEnvironment({
              environmentId: qa.id,
              audit: audit(alpha.id, "environment.deleted", "qa"),
            }),
          ).toBe(true)
          expect(yield* store.findEnvironment(alpha.id, "qa")).toBeUndefined()
          expect(yield* store.listSecrets(qa.id)).toEqual([])
          expect(yield* store.listVersions(secret!.id)).toEqual([])
          expect(
            yield* store.deleteEnvironment({
              environmentId: qa.id,
              audit: audit(alpha.id, "environment.deleted", "qa"),
            }),
          ).toBe(false)
          expect(Order.sorted(yield* store.listEnvironments(alpha.id), Order.byStage).map((e) => e.name)).toEqual(
            Order.sorted(environments, Order.byStage).map((e) => e.name),
          )

          // A write under a vanished parent fails instead of leaving an orphan (rule 8).
          const orphan = yield* Effect.flip(
            store.writeSecret({
              environmentId: qa.id,
              key: "K",
              expectedVersion: 0,
              secretId: nextId("secret"),
              value: "v",
              empty: false,
              userId: ownerId,
              at: at(),
              audit: audit(alpha.id, "secret.created", "K"),
            }),
          )
          expect(orphan).toBeInstanceOf(EnvironmentGone)
        }),
      ))

    it("stores version n+1 only over version n, and answers VersionConflict otherwise (rule 3)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha")
          const env = environments[0]!
          const secretId = nextId("secret")
          const write = (expectedVersion: number, value: string, offset = 0, id = secretId) =>
            store.writeSecret({
              environmentId: env.id,
              key: "K",
              expectedVersion,
              secretId: id,
              value,
              empty: false,
              userId: ownerId,
              at: at(offset),
              audit: audit(alpha.id, "secret.updated", "K"),
            })
          const first = yield* write(0, "v1")
          expect(first.version).toBe(1)
          expect((yield* Effect.flip(write(0, "again")))._tag).toBe("VersionConflict")
          expect((yield* Effect.flip(write(2, "ahead")))._tag).toBe("VersionConflict")
          // The right version of another secret (one deleted and re-created under the key) is refused too.
          expect((yield* Effect.flip(write(1, "other secret", 0, nextId("secret"))))._tag).toBe("VersionConflict")
          const second = yield* write(1, "v2", 5)
          expect(second).toEqual({ secretId, version: 2 })
          expect((yield* Effect.flip(write(1, "stale")))._tag).toBe("VersionConflict")
          expect(yield* store.findSecret(env.id, "K")).toEqual({
            id: first.secretId,
            environmentId: env.id,
            key: "K",
            version: 2,
            empty: false,
            createdAt: at(),
            updatedAt: at(5),
          })
          expect(Order.sorted(yield* store.listVersions(first.secretId), Order.byVersionDescending)).toEqual([
            { version: 2, createdAt: at(5), userId: ownerId, restoredFrom: null },
            { version: 1, createdAt: at(), userId: ownerId, restoredFrom: null },
          ])
          const log = yield* store.listAudit({ projectId: alpha.id, limit: 100, offset: 0 })
          expect(log.filter((entry) => entry.action === "secret.updated")).toHaveLength(2)
        }),
      ))

    it("keeps the version a restore brought back with the version it made; null for ordinary writes (rule 3)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha")
          const env = environments[0]!
          const ids = { K: nextId("secret"), L: nextId("secret"), M: nextId("secret") }
          const write = (key: keyof typeof ids, expectedVersion: number, restoredFrom?: number | null) =>
            store.writeSecret({
              environmentId: env.id,
              key,
              expectedVersion,
              secretId: ids[key],
              value: `sealed-${key}-${expectedVersion + 1}`,
              empty: false,
              userId: ownerId,
              at: at(expectedVersion),
              audit: audit(alpha.id, restoredFrom ? "secret.restored" : "secret.updated", key),
              ...(restoredFrom === undefined ? {} : { restoredFrom }),
            })
          yield* write("K", 0)
          yield* write("K", 1, null)
          yield* write("K", 2, 1)
          // Writes of one turn, which a store may send together: an ordinary one first, then a restore, and the
          // other way round; each keeps its own.
          yield* Effect.all([write("L", 0), write("M", 0)], { concurrency: "unbounded" })
          yield* Effect.all([write("L", 1), write("M", 1, 1)], { concurrency: "unbounded" })
          yield* Effect.all([write("L", 2, 1), write("M", 2)], { concurrency: "unbounded" })
          const history = (key: keyof typeof ids) =>
            Effect.map(store.listVersions(ids[key]), (versions) =>
              Order.sorted(versions, Order.byVersionDescending).map((v) => [v.version, v.restoredFrom]),
            )
          expect(yield* history("K")).toEqual([
            [3, 1],
            [2, null],
            [1, null],
          ])
          expect(yield* history("L")).toEqual([
            [3, 1],
            [2, null],
            [1, null],
          ])
          expect(yield* history("M")).toEqual([
            [3, null],
            [2, 1],
            [1, null],
          ])
          expect(Order.sorted(yield* store.listVersions(ids.K), Order.byVersionDescending)[0]).toEqual({
            version: 3,
            createdAt: at(2),
            userId: ownerId,
            restoredFrom: 1,
          })
          // A read answers the value, not the history's note.
          const read = yield* store.readSecret({ environmentId: env.id, key: "K" })
          expect(read?.sealed).toEqual({ version: 3, value: "sealed-K-3", userId: ownerId, createdAt: at(2) })
        }),
      ))

    it("lets exactly one of concurrent writers with the same expected version succeed, creating or updating", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha")
          const env = environments[0]!
          const hotId = nextId("secret")
          const race = (expectedVersion: number) =>
            Effect.forEach(
              Array.from({ length: 8 }, (_, i) => i),
              (i) =>
                Effect.exit(
                  store.writeSecret({
                    environmentId: env.id,
                    key: "HOT",
                    expectedVersion,
                    secretId: hotId,
                    value: `v${expectedVersion + 1}-${i}`,
                    empty: false,
                    userId: ownerId,
                    at: at(),
                    audit: audit(alpha.id, "secret.updated", "HOT"),
                  }),
                ),
              { concurrency: "unbounded" },
            )
          for (const expected of [0, 1]) {
            const exits = yield* race(expected)
            expect(exits.filter(Exit.isSuccess)).toHaveLength(1)
            for (const exit of exits.filter(Exit.isFailure)) expect(errorTag(exit)).toBe("VersionConflict")
          }
          const secret = yield* store.findSecret(env.id, "HOT")
          expect(secret?.version).toBe(2)
          expect(
            Order.sorted(yield* store.listVersions(secret!.id), Order.byVersionDescending).map((v) => v.version),
          ).toEqual([2, 1])
          const log = yield* store.listAudit({ projectId: alpha.id, limit: 100, offset: 0 })
          expect(log.filter((entry) => entry.targetKey === "HOT")).toHaveLength(2)
        }),
      ))

    it("keeps versions contiguous when writers retry from a fresh read, as the use cases do", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha")
          const env = environments[0]!
          const writer = (i: number) =>
            Effect.gen(function* () {
              const current = yield* store.findSecret(env.id, "HOT")
              return yield* store.writeSecret({
                environmentId: env.id,
                key: "HOT",
                expectedVersion: current?.version ?? 0,
                secretId: current?.id ?? nextId("secret"),
                value: `value-${i}`,
                empty: false,
                userId: ownerId,
                at: at(),
                audit: audit(alpha.id, "secret.updated", "HOT"),
              })
            }).pipe(Effect.retry({ while: (error) => error._tag === "VersionConflict", times: 200 }))
          const written = yield* Effect.forEach(
            Array.from({ length: 12 }, (_, i) => i),
            writer,
            { concurrency: "unbounded" },
          )
          expect(written.map((w) => w.version).sort((a, b) => a - b)).toEqual(
            Array.from({ length: 12 }, (_, i) => i + 1),
          )
          const secret = yield* store.findSecret(env.id, "HOT")
          for (const [i, { version }] of written.entries()) {
            const read = yield* store.readSecret({ environmentId: env.id, key: "HOT", version })
            expect(read?.sealed?.value).toBe(`value-${i}`)
          }
          expect(
            Order.sorted(yield* store.listVersions(secret!.id), Order.byVersionDescending).map((v) => v.version),
          ).toEqual(Array.from({ length: 12 }, (_, i) => 12 - i))
        }),
      ))

    it("keeps with each secret whether its current value is empty, as written, in every read of it", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha")
          const env = environments[0]!
          const secretId = nextId("secret")
          const write = (expectedVersion: number, empty: boolean) =>
            store.writeSecret({
              environmentId: env.id,
              key: "E",
              expectedVersion,
              secretId,
              value: `sealed-E-${expectedVersion + 1}`,
              empty,
              userId: ownerId,
              at: at(expectedVersion),
              audit: audit(alpha.id, expectedVersion === 0 ? "secret.created" : "secret.updated", "E"),
            })
          const seen = () =>
            Effect.gen(function* () {
              const listed = (yield* store.listSecrets(env.id)).find((secret) => secret.key === "E")
              const found = yield* store.findSecret(env.id, "E")
              const read = yield* store.readSecret({ environmentId: env.id, key: "E" })
              return [listed?.empty, found?.empty, read?.secret.empty]
            })
          yield* write(0, true)
          expect(yield* seen()).toEqual([true, true, true])
          yield* write(1, false)
          expect(yield* seen()).toEqual([false, false, false])
          yield* write(2, true)
          expect(yield* seen()).toEqual([true, true, true])
        }),
      ))

    it("reads a version with its audit record only when the version exists (rule 2)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha")
          const env = environments[0]!
          yield* writeVersions(store, env.id, alpha.id, "K", 2, ownerId)
          const log = () => store.listAudit({ projectId: alpha.id, limit: 100, offset: 0 })
          const before = (yield* log()).length
          const current = yield* store.readSecret({
            environmentId: env.id,
            key: "K",
            audit: audit(alpha.id, "secret.read", "K"),
          })
          expect(current?.secret.version).toBe(2)
          expect(current?.sealed).toEqual({ version: 2, value: "sealed-K-2", userId: ownerId, createdAt: at(1) })
          const old = yield* store.readSecret({
            environmentId: env.id,
            key: "K",
            version: 1,
            audit: audit(alpha.id, "secret.read", "K@1"),
          })
          expect(old?.sealed?.value).toBe("sealed-K-1")
          const missing = yield* store.readSecret({
            environmentId: env.id,
            key: "K",
            version: 3,
            audit: audit(alpha.id, "secret.read", "K@3"),
          })
          expect(missing).toEqual({ secret: current!.secret, sealed: undefined })
          // Numbers past any column's range name no version either (Postgres' integer refuses them as parameters).
          for (const version of [2 ** 31 - 1, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
            expect(
              yield* store.readSecret({
                environmentId: env.id,
                key: "K",
                version,
                audit: audit(alpha.id, "secret.read", "K@n"),
              }),
            ).toEqual({ secret: current!.secret, sealed: undefined })
          }
          expect(
            yield* store.readSecret({
              environmentId: env.id,
              key: "NOPE",
              audit: audit(alpha.id, "secret.read", "NOPE"),
            }),
          ).toBeUndefined()
          expect(yield* store.readSecret({ environmentId: env.id, key: "K" })).toBeDefined()
          expect((yield* log()).map((e) => e.targetKey).slice(0, (yield* log()).length - before)).toEqual(["K@1", "K"])
        }),
      ))

    it("reads a secret by its path with its audit record only when a current version is found (rule 2)", () =>
      run(({ store, project, person }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha", ["development", "staging"])
          const { project: beta } = yield* project("beta")
          const [development, staging] = environments
          yield* writeVersions(store, development!.id, alpha.id, "K", 2, ownerId)
          const stranger = yield* person()
          const log = () =>
            Effect.map(store.listAudit({ projectId: alpha.id, limit: 100, offset: 0 }), (entries) =>
              entries.filter((entry) => entry.action === "secret.read"),
            )
          const {
            projectId: _p,
            environmentId: _e,
            ...draft
          } = audit(alpha.id, "secret.read", "K", { userId: ownerId })
          const readAt = (input: Partial<SecretStore.ReadSecretAtInput>) =>
            store.readSecretAt({
              slug: "alpha",
              userId: ownerId,
              environment: "development",
              key: "K",
              audit: { ...draft, id: nextId("audit") },
              ...input,
            })

          const found = yield* readAt({})
          expect(found?.access).toEqual({ project: alpha, role: "owner" })
          expect(found?.environment).toEqual(development)
          expect(found?.secret).toMatchObject({ environmentId: development!.id, key: "K", version: 2 })
          expect(found?.sealed).toEqual({ version: 2, value: "sealed-K-2", userId: ownerId, createdAt: at(1) })
          // The record carries the project and environment the store found.
          const [record] = yield* log()
          expect(record).toMatchObject({ projectId: alpha.id, environmentId: development!.id, targetKey: "K" })
          // In the API key's own project only.
          expect((yield* readAt({ projectId: alpha.id }))?.sealed?.value).toBe("sealed-K-2")
          expect(yield* log()).toHaveLength(2)

          // Nothing found to read: no record.
          expect(yield* readAt({ projectId: beta.id })).toBeUndefined()
          expect(yield* readAt({ userId: stranger })).toBeUndefined()
          expect(yield* readAt({ slug: "nope" })).toBeUndefined()
          const elsewhere = yield* readAt({ environment: "staging" })
          expect(elsewhere).toEqual({
            access: found!.access,
            environment: staging,
            secret: undefined,
            sealed: undefined,
          })
          expect(yield* readAt({ environment: "nope" })).toEqual({
            access: found!.access,
            environment: undefined,
            secret: undefined,
            sealed: undefined,
          })
          expect(yield* readAt({ key: "NOPE" })).toMatchObject({ environment: development, secret: undefined })
          expect(yield* log()).toHaveLength(2)
        }),
      ))

    // Under load one moment holds many requests; a store may serve them together (Postgres: one statement for a
    // turn's audited reads, one for its reaches, one for its writes), but each must get its own answer.
    it("answers reads, reaches and writes made at the same moment each on their own", () =>
      run(({ store, project, person }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha", ["development", "qa"])
          const [development, qa] = environments
          for (const key of ["K1", "K2", "K3", "K4"]) {
            yield* writeVersions(store, development!.id, alpha.id, key, 1, ownerId)
          }
          yield* store.deleteEnvironment({ environmentId: qa!.id, audit: audit(alpha.id, "environment.deleted", "qa") })
          const stranger = yield* person()
          const k3 = yield* store.findSecret(development!.id, "K3")
          const readAt = (key: string, userId = ownerId) =>
            store.readSecretAt({
              slug: "alpha",
              userId,
              environment: "development",
              key,
              audit: { ...audit(alpha.id, "secret.read", key, { userId }), id: nextId("audit") },
            })
          const write = (environmentId: string, key: string, expectedVersion: number, secretId: string) =>
            store.writeSecret({
              environmentId,
              key,
              expectedVersion,
              secretId,
              value: `together-${key}`,
              empty: false,
              userId: ownerId,
              at: at(5),
              audit: audit(alpha.id, expectedVersion === 0 ? "secret.created" : "secret.updated", key),
            })
          const [read, missing, refused, reached, unreached, advanced, created, stale, orphan] = yield* Effect.all(
            [
              readAt("K1"),
              readAt("NOPE"),
              readAt("K1", stranger),
              store.findProjectEnvironment("alpha", ownerId, "development", "K2"),
              store.findProjectEnvironment("alpha", stranger, "development", "K2"),
              Effect.exit(write(development!.id, "K3", 1, k3!.id)),
              Effect.exit(write(development!.id, "K5", 0, nextId("secret"))),
              Effect.exit(write(development!.id, "K4", 5, nextId("secret"))),
              Effect.exit(write(qa!.id, "K6", 0, nextId("secret"))),
            ],
            { concurrency: "unbounded" },
          )
          expect(read?.sealed?.value).toBe("sealed-K1-1")
          expect(missing).toMatchObject({ environment: development, secret: undefined, sealed: undefined })
          expect(refused).toBeUndefined()
          expect(reached?.secret).toMatchObject({ key: "K2", version: 1 })
          expect(unreached).toBeUndefined()
          expect(advanced).toEqual(Exit.succeed({ secretId: k3!.id, version: 2 }))
          expect(Exit.isSuccess(created) && created.value.version).toBe(1)
          expect(errorTag(stale)).toBe("VersionConflict")
          expect(errorTag(orphan)).toBe("EnvironmentGone")

          // Only what was read or written left a record: one read, one update, one creation.
          const log = yield* store.listAudit({ projectId: alpha.id, limit: 100, offset: 0 })
          const since = log.filter((entry) =>
            entry.action === "secret.created"
              ? ["K5", "K6"].includes(entry.targetKey)
              : entry.action.startsWith("secret."),
          )
          expect(since.map((entry) => `${entry.action} ${entry.targetKey}`).sort()).toEqual([
            "secret.created K5",
            "secret.read K1",
            "secret.updated K3",
          ])
          expect((yield* readAt("K3"))?.sealed?.value).toBe("together-K3")
          expect((yield* readAt("K5"))?.sealed?.value).toBe("together-K5")
          expect((yield* store.findSecret(development!.id, "K4"))?.version).toBe(1)
        }),
      ))

    it("deletes a secret with its history; the key starts again at version 1 (rule 4)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha")
          const env = environments[0]!
          yield* writeVersions(store, env.id, alpha.id, "K", 3, ownerId)
          const secret = yield* store.findSecret(env.id, "K")
          const remove = () =>
            store.deleteSecret({ environmentId: env.id, key: "K", audit: audit(alpha.id, "secret.deleted", "K") })
          expect(yield* remove()).toBe(true)
          expect(yield* remove()).toBe(false)
          expect(yield* store.findSecret(env.id, "K")).toBeUndefined()
          expect(yield* store.listVersions(secret!.id)).toEqual([])
          const again = yield* writeVersions(store, env.id, alpha.id, "K", 1, ownerId)
          expect(again[0]?.version).toBe(1)
        }),
      ))

    it("deletes with expected only the secret read, at the version read, and records only that deletion (rule 3)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha")
          const env = environments[0]!
          yield* writeVersions(store, env.id, alpha.id, "K", 2, ownerId)
          const first = (yield* store.findSecret(env.id, "K"))!
          const remove = (expected: { secretId: string; version: number }) =>
            store.deleteSecret({
              environmentId: env.id,
              key: "K",
              audit: audit(alpha.id, "secret.deleted", "K"),
              expected,
            })
          const deletions = () =>
            Effect.map(
              store.listAudit({ projectId: alpha.id, offset: 0, limit: 50, filter: { actions: ["secret.deleted"] } }),
              (entries) => entries.length,
            )
          // Another version, another secret's id: nothing deleted, nothing recorded.
          expect(yield* remove({ secretId: first.id, version: 1 })).toBe(false)
          expect(yield* remove({ secretId: "someone-else", version: 2 })).toBe(false)
          expect((yield* store.findSecret(env.id, "K"))?.version).toBe(2)
          expect(yield* deletions()).toBe(0)
          expect(yield* remove({ secretId: first.id, version: 2 })).toBe(true)
          expect(yield* deletions()).toBe(1)
          // Deleted and created again under the same key, at the version read: still not the secret read.
          yield* writeVersions(store, env.id, alpha.id, "K", 2, ownerId)
          const second = (yield* store.findSecret(env.id, "K"))!
          expect(second.id).not.toBe(first.id)
          expect(yield* remove({ secretId: first.id, version: 2 })).toBe(false)
          expect((yield* store.findSecret(env.id, "K"))?.id).toBe(second.id)
          expect(yield* deletions()).toBe(1)
        }),
      ))

    it("lists and exports every secret of an environment, keys kept as written whatever the collation (rule 6)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha", ["development", "staging"])
          const [env, other] = environments as [SecretStore.EnvironmentRecord, SecretStore.EnvironmentRecord]
          const keys = ["b", "B", "a_b", "A", "_x", "a-b", "a.b", "Z9", "a", "10", "9"]
          for (const key of keys) yield* writeVersions(store, env.id, alpha.id, key, key === "B" ? 2 : 1, ownerId)
          yield* writeVersions(store, other.id, alpha.id, "ELSEWHERE", 1, ownerId)
          const expected = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
          expect(Order.sorted(yield* store.listSecrets(env.id), Order.byKey).map((s) => s.key)).toEqual(expected)
          const exported = yield* store.exportSecrets({
            environmentId: env.id,
            audit: audit(alpha.id, "secrets.exported", "json"),
          })
          expect(Order.sorted(exported, Order.byKey).map((e) => e.key)).toEqual(expected)
          const secretB = yield* store.findSecret(env.id, "B")
          expect(exported.find((e) => e.key === "B")).toEqual({
            secretId: secretB!.id,
            key: "B",
            version: 2,
            value: "sealed-B-2",
          })
          const log = yield* store.listAudit({ projectId: alpha.id, limit: 1, offset: 0 })
          expect(log.map((e) => [e.action, e.targetKey])).toEqual([["secrets.exported", "json"]])
          expect(
            yield* store.exportSecrets({ environmentId: "none", audit: audit(alpha.id, "secrets.exported", "dotenv") }),
          ).toEqual([])
        }),
      ))

    it("finds API keys by hash (with the holder's account as it is now, rule 11) and id; lists every key of the projects asked for", () =>
      run(({ store, context, project, person }) =>
        Effect.gen(function* () {
          const accounts = Context.get(context, Accounts.Accounts)
          const alpha = yield* project("alpha")
          const beta = yield* project("beta")
          const member = yield* person()
          yield* join(store, alpha.project.id, member)
          yield* join(store, beta.project.id, member)
          const ownerKey = { ...apiKeyRecord(alpha.project.id, alpha.ownerId), createdAt: at(1) }
          const memberKey = { ...apiKeyRecord(alpha.project.id, member), createdAt: at(2) }
          const elsewhere = { ...apiKeyRecord(beta.project.id, member), createdAt: at(3) }
          for (const apiKey of [ownerKey, memberKey, elsewhere]) {
            expect(
              yield* store.createApiKey({ apiKey, audit: audit(apiKey.projectId, "api_key.created", apiKey.name) }),
            ).toBe(true)
          }
          const holder = yield* accounts.findById(member)
          expect(yield* store.findApiKeyByHash(memberKey.keyHash)).toEqual({ key: memberKey, holder })
          expect(yield* store.findApiKey(memberKey.id)).toEqual(memberKey)
          // The holder is read with the key, not remembered with it: a new address shows at the next use.
          const renamed = yield* accounts.updateEmail(member, `renamed-${nextId("e")}@example.com`)
          expect((yield* store.findApiKeyByHash(memberKey.keyHash))?.holder).toEqual(renamed)
          expect((yield* store.findApiKeyByHash(ownerKey.keyHash))?.holder).toEqual(
            yield* accounts.findById(alpha.ownerId),
          )
          expect(yield* store.findApiKeyByHash("unknown")).toBeUndefined()
          const ids = (keys: ReadonlyArray<SecretStore.ApiKeyRecord>) => keys.map((key) => key.id)
          const list = (projectIds: ReadonlyArray<string>) =>
            Effect.map(store.listApiKeys(projectIds), (keys) => ids(Order.sorted(keys, Order.newestFirst)))
          expect(yield* list([alpha.project.id])).toEqual([memberKey.id, ownerKey.id])
          expect(yield* list([alpha.project.id, beta.project.id])).toEqual([elsewhere.id, memberKey.id, ownerKey.id])
          expect(yield* list([beta.project.id])).toEqual([elsewhere.id])
          expect(yield* list([])).toEqual([])

          const rotate = (previousKeyHash: string, keyHash: string) =>
            store.rotateApiKey({
              id: memberKey.id,
              previousKeyHash,
              keyHash,
              keyPrefix: "cfk_newpref",
              expiresAt: at(99),
              audit: audit(alpha.project.id, "api_key.rotated", memberKey.name),
            })
          expect(yield* rotate(memberKey.keyHash, "new-hash")).toBe(true)
          // A second rotation from the same read finds the hash changed: nothing written, nothing recorded.
          expect(yield* rotate(memberKey.keyHash, "lost-hash")).toBe(false)
          expect(yield* store.findApiKeyByHash("lost-hash")).toBeUndefined()
          expect(yield* store.findApiKeyByHash(memberKey.keyHash)).toBeUndefined()
          expect(yield* store.findApiKeyByHash("new-hash")).toEqual({
            key: { ...memberKey, keyHash: "new-hash", keyPrefix: "cfk_newpref", expiresAt: at(99) },
            holder: renamed,
          })
          yield* store.touchApiKey(memberKey.id, at(50))
          expect((yield* store.findApiKey(memberKey.id))?.lastUsedAt).toBe(at(50))
          const remove = () =>
            store.deleteApiKey({ id: memberKey.id, audit: audit(alpha.project.id, "api_key.deleted", memberKey.name) })
          expect(yield* remove()).toBe(true)
          expect(yield* remove()).toBe(false)
          expect(yield* store.findApiKeyByHash("new-hash")).toBeUndefined()
          expect(
            yield* store.rotateApiKey({
              id: memberKey.id,
              previousKeyHash: "new-hash",
              keyHash: "h",
              keyPrefix: "p",
              expiresAt: null,
              audit: audit(alpha.project.id, "api_key.rotated", "x"),
            }),
          ).toBe(false)
          const actions = (yield* store.listAudit({ projectId: alpha.project.id, limit: 2, offset: 0 })).map(
            (e) => e.action,
          )
          expect(actions).toEqual(["api_key.deleted", "api_key.rotated"])
        }),
      ))

    it("of rotations of one key from the same read at the same time, exactly one takes, with one record", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const alpha = yield* project("alpha")
          const apiKey = apiKeyRecord(alpha.project.id, alpha.ownerId)
          yield* store.createApiKey({ apiKey, audit: audit(alpha.project.id, "api_key.created", apiKey.name) })
          const rotations = Array.from({ length: 20 }, (_, index) =>
            store.rotateApiKey({
              id: apiKey.id,
              previousKeyHash: apiKey.keyHash,
              keyHash: `concurrent-${index}`,
              keyPrefix: "cfk_conc",
              expiresAt: null,
              audit: audit(alpha.project.id, "api_key.rotated", apiKey.name),
            }),
          )
          const taken = yield* Effect.all(rotations, { concurrency: "unbounded" })
          expect(taken.filter((rotated) => rotated)).toHaveLength(1)
          expect((yield* store.findApiKey(apiKey.id))?.keyHash).toBe(`concurrent-${taken.indexOf(true)}`)
          const records = yield* store.listAudit({ projectId: alpha.project.id, limit: 50, offset: 0 })
          expect(records.filter((record) => record.action === "api_key.rotated")).toHaveLength(1)
        }),
      ))

    it("creates an API key only for a member of its project, even against a removal at the same time (rule 8)", () =>
      run(({ store, project, person }) =>
        Effect.gen(function* () {
          const { project: alpha } = yield* project("alpha")
          const create = (userId: string) => {
            const apiKey = apiKeyRecord(alpha.id, userId)
            return Effect.map(
              store.createApiKey({ apiKey, audit: audit(alpha.id, "api_key.created", apiKey.name) }),
              (created) => ({ created, id: apiKey.id }),
            )
          }
          const created = () =>
            Effect.map(
              store.listAudit({ projectId: alpha.id, filter: { actions: ["api_key.created"] }, limit: 500, offset: 0 }),
              (records) => records.length,
            )
          const stranger = yield* create(yield* person())
          expect(stranger.created).toBe(false)
          expect(yield* store.findApiKey(stranger.id)).toBeUndefined()
          const member = yield* person()
          yield* join(store, alpha.id, member)
          yield* store.removeMember({
            projectId: alpha.id,
            userId: member,
            audit: audit(alpha.id, "member.removed", "x"),
            keyAudit: keyAudit(alpha.id),
          })
          const removed = yield* create(member)
          expect(removed.created).toBe(false)
          expect(yield* created()).toBe(0)

          // Side by side (on Postgres, two connections): whichever comes first, no key is left for a non-member.
          let stored = 0
          for (let round = 0; round < 20; round++) {
            const racer = yield* person()
            yield* join(store, alpha.id, racer)
            const [, key] = yield* Effect.all(
              [
                store.removeMember({
                  projectId: alpha.id,
                  userId: racer,
                  audit: audit(alpha.id, "member.removed", "x"),
                  keyAudit: keyAudit(alpha.id),
                }),
                create(racer),
              ],
              { concurrency: 2 },
            )
            if (key.created) stored++
            expect(yield* store.findApiKey(key.id)).toBeUndefined()
          }
          expect(yield* created()).toBe(stored)
          // Every key stored before its holder's removal went with it, and was logged as deleted (rule 1).
          const deleted = yield* store.listAudit({
            projectId: alpha.id,
            filter: { actions: ["api_key.deleted"] },
            limit: 500,
            offset: 0,
          })
          expect(deleted.length).toBe(stored)
        }),
      ))

    it("pages the audit log newest first by time, then id", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha")
          const env = environments[0]!
          const entries = [
            audit(alpha.id, "secret.read", "late", { id: "b-0001", createdAt: at(20) }),
            audit(alpha.id, "secret.read", "tie-low", { id: "a-0001", createdAt: at(10), environmentId: env.id }),
            audit(alpha.id, "secret.read", "tie-high", { id: "a-0002", createdAt: at(10), ipAddress: null }),
            audit(alpha.id, "secret.read", "early", { id: "z-0001", createdAt: at(5) }),
          ]
          // Written before the entries below, at an earlier time: they come last.
          yield* writeVersions(store, env.id, alpha.id, "K", 1, ownerId)
          for (const entry of entries) yield* store.readSecret({ environmentId: env.id, key: "K", audit: entry })
          const page = (limit: number, offset: number) =>
            Effect.map(store.listAudit({ projectId: alpha.id, limit, offset }), (log) => log.map((e) => e.targetKey))
          expect(yield* page(4, 0)).toEqual(["late", "tie-high", "tie-low", "early"])
          expect(yield* page(2, 1)).toEqual(["tie-high", "tie-low"])
          expect(yield* page(50, 6)).toEqual([])
          const all = yield* store.listAudit({ projectId: alpha.id, limit: 2, offset: 1 })
          expect(all[1]).toEqual(entries[1])
          expect(all[0]).toEqual(entries[2])
        }),
      ))

    it("answers records of one millisecond in the reverse of the order they were appended, whatever their ids (rule 6)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha } = yield* project("alpha")
          // Ids that sort against the order of appends: the store's order must not come from them.
          for (const [id, name] of [
            ["z-0003", "first"],
            ["m-0002", "second"],
            ["a-0001", "third"],
          ] as const) {
            yield* store.createEnvironment({
              environment: { id: nextId("env"), projectId: alpha.id, name, createdAt: at(50) },
              audit: audit(alpha.id, "environment.created", name, { id, createdAt: at(50) }),
            })
          }
          const page = (limit: number, offset: number) =>
            Effect.map(store.listAudit({ projectId: alpha.id, limit, offset }), (log) => log.map((e) => e.targetKey))
          expect(yield* page(3, 0)).toEqual(["third", "second", "first"])
          expect(yield* page(1, 1)).toEqual(["second"])
          expect(yield* page(10, 2)).toEqual(["first", "alpha"])
        }),
      ))

    it("keeps the API key each record names, and its name, however the record was written; null for a session (rule 13)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha", ["development"])
          const env = environments[0]!
          yield* writeVersions(store, env.id, alpha.id, "K", 1, ownerId)
          const k3 = yield* store.findSecret(env.id, "K")
          // Names as people give them: spaces, accents written as one code point or two, beyond the BMP.
          const ci = { id: "key-ci", name: "CI deploy, e\u0301té 🚀" }
          const laptop = { id: "key-laptop", name: "laptop" }
          const withKey = (apiKey: SecretStore.AuditKey | null, action: AuditAction, target: string) =>
            audit(alpha.id, action, target, { userId: ownerId, environmentId: env.id, apiKey })
          const readAt = (apiKey: SecretStore.AuditKey | null, target: string) => {
            const { projectId: _p, environmentId: _e, ...draft } = withKey(apiKey, "secret.read", target)
            return store.readSecretAt({
              slug: "alpha",
              userId: ownerId,
              environment: "development",
              key: "K",
              audit: draft,
            })
          }
          const write = (apiKey: SecretStore.AuditKey | null, key: string, expectedVersion: number, secretId: string) =>
            store.writeSecret({
              environmentId: env.id,
              key,
              expectedVersion,
              secretId,
              value: `v-${key}-${expectedVersion + 1}`,
              empty: false,
              userId: ownerId,
              at: at(expectedVersion),
              audit: withKey(apiKey, expectedVersion === 0 ? "secret.created" : "secret.updated", key),
            })
          // One at a time, then several at once (which a store may write together, Postgres in one statement).
          yield* readAt(ci, "by-path")
          yield* store.readSecret({ environmentId: env.id, key: "K", audit: withKey(laptop, "secret.read", "by-id") })
          yield* write(ci, "K", 1, k3!.id)
          yield* store.exportSecrets({ environmentId: env.id, audit: withKey(ci, "secrets.exported", "json") })
          yield* store.createEnvironment({
            environment: { id: nextId("env"), projectId: alpha.id, name: "qa", createdAt: at() },
            audit: withKey(null, "environment.created", "qa"),
          })
          yield* Effect.all(
            [
              readAt(ci, "together-ci"),
              readAt(null, "together-session"),
              readAt(laptop, "together-laptop"),
              write(ci, "NEW_CI", 0, nextId("secret")),
              write(null, "NEW_SESSION", 0, nextId("secret")),
            ],
            { concurrency: "unbounded" },
          )
          const log = yield* store.listAudit({ projectId: alpha.id, limit: 100, offset: 0 })
          const named = Object.fromEntries(log.map((entry) => [`${entry.action} ${entry.targetKey}`, entry.apiKey]))
          expect(named).toEqual({
            "project.created alpha": null,
            "secret.created K": null,
            "secret.read by-path": ci,
            "secret.read by-id": laptop,
            "secret.updated K": ci,
            "secrets.exported json": ci,
            "environment.created qa": null,
            "secret.read together-ci": ci,
            "secret.read together-session": null,
            "secret.read together-laptop": laptop,
            "secret.created NEW_CI": ci,
            "secret.created NEW_SESSION": null,
          })
          expect(log).toHaveLength(12)
        }),
      ))

    describe("filters the audit log before paging (rule 12)", () => {
      /**
       * A log with near misses for every filter, appended newest last (each a millisecond after the one before),
       * through audited reads of one secret: a record says what it is given, whatever the read was.
       */
      type List = (
        filter: SecretStore.AuditFilter,
        limit?: number,
        offset?: number,
      ) => Effect.Effect<ReadonlyArray<string>, unknown>
      const filtered = (
        check: (
          list: List,
          environments: { readonly dev: string; readonly prod: string },
        ) => Effect.Effect<void, unknown>,
      ) =>
        run(({ store, project }) =>
          Effect.gen(function* () {
            const { project: alpha, ownerId, environments } = yield* project("alpha", ["dev", "prod"])
            const { project: beta } = yield* project("beta")
            const [dev, prod] = [environments[0]!, environments[1]!]
            yield* writeVersions(store, dev.id, alpha.id, "K", 1, ownerId)
            const ada = { userEmail: "Ada@Example.com", environmentId: dev.id }
            const records: ReadonlyArray<readonly [AuditAction, string, Partial<SecretStore.AuditRecord>]> = [
              ["secret.created", "DB_URL", ada],
              ["secret.read", "DB_URL", { ...ada, userEmail: "ada@example.com", environmentId: prod.id }],
              ["secret.read", "DB_URL@1", { userEmail: "bob@example.com", environmentId: dev.id }],
              ["secret.restored", "DB_URL@2", ada],
              // `_` is a LIKE wildcard; a longer key; another case; `A` is the code unit after `@`.
              ["secret.read", "DBXURL", ada],
              ["secret.read", "DB_URL2", ada],
              ["secret.read", "db_url", ada],
              ["secret.read", "DB_URLA", ada],
              ["environment.created", "DB_URL", { userEmail: "ada@example.com", environmentId: null }],
              ["secret.read", "DB_URL", { userEmail: "ÉVA@example.com", environmentId: dev.id }],
              ["secret.read", "DB_URL", { userEmail: "e\u0301va@example.com", environmentId: dev.id }],
            ]
            for (const [i, [action, target, overrides]] of records.entries()) {
              const entry = audit(alpha.id, action, target, { createdAt: at(100 + i), ...overrides })
              yield* store.readSecret({ environmentId: dev.id, key: "K", audit: entry })
            }
            yield* store.createEnvironment({
              environment: { id: nextId("env"), projectId: beta.id, name: "other", createdAt: at(200) },
              audit: audit(beta.id, "secret.read", "DB_URL", { ...ada, environmentId: null, createdAt: at(200) }),
            })
            const list: List = (filter, limit = 50, offset = 0) =>
              Effect.map(store.listAudit({ projectId: alpha.id, filter, limit, offset }), (log) =>
                log.map((entry) => `${entry.action} ${entry.targetKey} ${entry.userEmail}`),
              )
            yield* check(list, { dev: dev.id, prod: prod.id })
          }),
        )

      it("by actions, an empty list matching nothing", () =>
        filtered((list) =>
          Effect.gen(function* () {
            expect(yield* list({ actions: ["secret.restored", "environment.created"] })).toEqual([
              "environment.created DB_URL ada@example.com",
              "secret.restored DB_URL@2 Ada@Example.com",
            ])
            expect(yield* list({ actions: ["secrets.exported"] })).toEqual([])
            expect(yield* list({ actions: [] })).toEqual([])
          }),
        ))

      it("by secret key: the key exactly, or the key and `@` with anything after", () =>
        filtered((list) =>
          Effect.gen(function* () {
            expect(yield* list({ secretKey: "DB_URL" })).toEqual([
              "secret.read DB_URL e\u0301va@example.com",
              "secret.read DB_URL ÉVA@example.com",
              "environment.created DB_URL ada@example.com",
              "secret.restored DB_URL@2 Ada@Example.com",
              "secret.read DB_URL@1 bob@example.com",
              "secret.read DB_URL ada@example.com",
              "secret.created DB_URL Ada@Example.com",
            ])
            expect(yield* list({ secretKey: "DB_URL", actions: ["secret.read"] }, 2, 1)).toEqual([
              "secret.read DB_URL ÉVA@example.com",
              "secret.read DB_URL@1 bob@example.com",
            ])
            expect(yield* list({ secretKey: "DB" })).toEqual([])
            expect(yield* list({ secretKey: "DBXURL" })).toEqual(["secret.read DBXURL Ada@Example.com"])
          }),
        ))

      it("by the address's key (NFC, lower case), and by environment", () =>
        filtered((list, environments) =>
          Effect.gen(function* () {
            expect(yield* list({ userEmailKey: "éva@example.com" })).toEqual([
              "secret.read DB_URL e\u0301va@example.com",
              "secret.read DB_URL ÉVA@example.com",
            ])
            expect(yield* list({ userEmailKey: "bob@example.com" })).toEqual(["secret.read DB_URL@1 bob@example.com"])
            expect(yield* list({ userEmailKey: "Bob@example.com" })).toEqual([])
            expect((yield* list({ userEmailKey: "ada@example.com" })).length).toBe(8)
            expect(yield* list({ environmentId: environments.prod })).toEqual(["secret.read DB_URL ada@example.com"])
            expect((yield* list({ environmentId: environments.dev })).length).toBe(9)
            expect(yield* list({ environmentId: "no-such-environment" })).toEqual([])
          }),
        ))

      it("by API key, with the others, then pages what matches; an id of no key matches nothing", () =>
        run(({ store, project }) =>
          Effect.gen(function* () {
            const { project: alpha, ownerId, environments } = yield* project("alpha", ["dev"])
            const { project: beta } = yield* project("beta")
            const dev = environments[0]!
            yield* writeVersions(store, dev.id, alpha.id, "K", 1, ownerId)
            const ci = { id: "key-ci", name: "ci" }
            // Near misses: another key, a session, a key whose id starts like it, the same key in another project.
            const records: ReadonlyArray<readonly [AuditAction, string, SecretStore.AuditKey | null]> = [
              ["secret.read", "A", ci],
              ["secret.read", "B", null],
              ["secret.read", "C", { id: "key-other", name: "ci" }],
              ["secret.updated", "D", ci],
              ["secret.read", "E", { id: "key-ci2", name: "ci2" }],
              ["secrets.exported", "json", ci],
              ["secret.read", "F", ci],
            ]
            for (const [i, [action, target, apiKey]] of records.entries()) {
              const entry = audit(alpha.id, action, target, { createdAt: at(100 + i), apiKey })
              yield* store.readSecret({ environmentId: dev.id, key: "K", audit: entry })
            }
            yield* store.createEnvironment({
              environment: { id: nextId("env"), projectId: beta.id, name: "other", createdAt: at(200) },
              audit: audit(beta.id, "secret.read", "G", { createdAt: at(200), apiKey: ci }),
            })
            const list = (filter: SecretStore.AuditFilter, limit = 50, offset = 0) =>
              Effect.map(store.listAudit({ projectId: alpha.id, filter, limit, offset }), (log) =>
                log.map((entry) => `${entry.action} ${entry.targetKey} ${entry.apiKey?.name}`),
              )
            expect(yield* list({ apiKeyId: "key-ci" })).toEqual([
              "secret.read F ci",
              "secrets.exported json ci",
              "secret.updated D ci",
              "secret.read A ci",
            ])
            expect(yield* list({ apiKeyId: "key-ci" }, 2, 1)).toEqual([
              "secrets.exported json ci",
              "secret.updated D ci",
            ])
            expect(yield* list({ apiKeyId: "key-ci" }, 2, 4)).toEqual([])
            expect(yield* list({ apiKeyId: "key-ci", actions: ["secret.read"] }, 1, 1)).toEqual(["secret.read A ci"])
            expect(yield* list({ apiKeyId: "key-other" })).toEqual(["secret.read C ci"])
            expect(yield* list({ apiKeyId: "key" })).toEqual([])
            expect(yield* list({ apiKeyId: "no-such-key" })).toEqual([])
          }),
        ))

      it("all together, then pages what matches", () =>
        filtered((list, environments) =>
          Effect.gen(function* () {
            const filter = { secretKey: "DB_URL", userEmailKey: "ada@example.com" }
            expect(yield* list(filter)).toEqual([
              "environment.created DB_URL ada@example.com",
              "secret.restored DB_URL@2 Ada@Example.com",
              "secret.read DB_URL ada@example.com",
              "secret.created DB_URL Ada@Example.com",
            ])
            expect(yield* list(filter, 2, 1)).toEqual([
              "secret.restored DB_URL@2 Ada@Example.com",
              "secret.read DB_URL ada@example.com",
            ])
            expect(yield* list(filter, 2, 4)).toEqual([])
            const narrower = { ...filter, environmentId: environments.dev, actions: SECRET_ACTIONS }
            expect(yield* list(narrower)).toEqual([
              "secret.restored DB_URL@2 Ada@Example.com",
              "secret.created DB_URL Ada@Example.com",
            ])
            expect(yield* list(narrower, 1, 1)).toEqual(["secret.created DB_URL Ada@Example.com"])
          }),
        ))
    })

    it("keeps every data key version; a new one becomes current only over the expected version (rule 10)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId } = yield* project("alpha")
          const { project: beta } = yield* project("beta")
          expect(yield* store.addDataKey({ projectId: alpha.id, expectedVersion: 2, dataKey: "cdk1.ahead" })).toBe(
            false,
          )
          expect(yield* store.addDataKey({ projectId: alpha.id, expectedVersion: 1, dataKey: "cdk1.v2" })).toBe(true)
          expect(yield* store.addDataKey({ projectId: alpha.id, expectedVersion: 1, dataKey: "cdk1.stale" })).toBe(
            false,
          )
          expect(yield* store.addDataKey({ projectId: "no-such-project", expectedVersion: 1, dataKey: "k" })).toBe(
            false,
          )
          const current = (yield* store.findProjectById(alpha.id, ownerId))?.project
          expect(current).toEqual({ ...alpha, dataKey: "cdk1.v2", dataKeyVersion: 2 })
          expect((yield* store.findProject("alpha", ownerId))?.project).toEqual(current)
          expect(yield* store.findDataKey(alpha.id, 1)).toBe(alpha.dataKey)
          expect(yield* store.findDataKey(alpha.id, 2)).toBe("cdk1.v2")
          expect(yield* store.findDataKey(alpha.id, 3)).toBeUndefined()
          expect(yield* store.findDataKey(beta.id, 1)).toBe(beta.dataKey)
          expect(yield* store.findDataKey(beta.id, 2)).toBeUndefined()
          expect(yield* store.findDataKey("no-such-project", 1)).toBeUndefined()
          const byVersion = (a: SecretStore.DataKeyRecord, b: SecretStore.DataKeyRecord) =>
            a.slug.localeCompare(b.slug) || a.version - b.version
          expect([...(yield* store.listDataKeys)].sort(byVersion)).toEqual([
            { projectId: alpha.id, slug: "alpha", version: 1, dataKey: alpha.dataKey, current: false },
            { projectId: alpha.id, slug: "alpha", version: 2, dataKey: "cdk1.v2", current: true },
            { projectId: beta.id, slug: "beta", version: 1, dataKey: beta.dataKey, current: true },
          ])
          // Of concurrent rotations from one version exactly one wins; nothing is lost either way.
          const added = yield* Effect.forEach(
            Array.from({ length: 6 }, (_, i) => i),
            (i) => store.addDataKey({ projectId: alpha.id, expectedVersion: 2, dataKey: `cdk1.v3-${i}` }),
            { concurrency: "unbounded" },
          )
          expect(added.filter(Boolean)).toHaveLength(1)
          const winner = `cdk1.v3-${added.indexOf(true)}`
          expect(yield* store.findDataKey(alpha.id, 3)).toBe(winner)
          expect(yield* store.findDataKey(alpha.id, 2)).toBe("cdk1.v2")
          expect(yield* store.findDataKey(alpha.id, 1)).toBe(alpha.dataKey)
          // Deleting the project takes every version with it (rule 4).
          yield* store.deleteProject({ projectId: alpha.id, audit: audit(alpha.id, "project.deleted", "alpha") })
          expect(yield* store.findDataKey(alpha.id, 1)).toBeUndefined()
          expect((yield* store.listDataKeys).map((key) => key.projectId)).toEqual([beta.id])
        }),
      ))

    it("marks a rotation under way once per project, keeps the first mark, and ends marks or drops them with the project (rule 10)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha } = yield* project("alpha")
          const { project: beta } = yield* project("beta")
          const { project: gamma } = yield* project("gamma")
          const marked = (marks: ReadonlyArray<{ projectId: string; fromVersion: number }>) =>
            Effect.map(store.markDataKeyRotations(marks), (stored) =>
              Object.fromEntries([...stored].map(([id, version]) => [id, version])),
            )
          expect(yield* marked([])).toEqual({})
          expect(
            yield* marked([
              { projectId: alpha.id, fromVersion: 1 },
              { projectId: "no-such-project", fromVersion: 1 },
            ]),
          ).toEqual({ [alpha.id]: 1 })
          // A mark already there is kept (a stopped run's), and only the marks of the projects asked about come back.
          expect(
            yield* marked([
              { projectId: alpha.id, fromVersion: 2 },
              { projectId: beta.id, fromVersion: 3 },
            ]),
          ).toEqual({ [alpha.id]: 1, [beta.id]: 3 })
          expect(yield* marked([{ projectId: gamma.id, fromVersion: 1 }])).toEqual({ [gamma.id]: 1 })
          // Concurrent runs marking one project keep one mark.
          const concurrent = yield* Effect.forEach(
            [5, 6, 7, 8],
            (fromVersion) => marked([{ projectId: gamma.id, fromVersion: fromVersion + 1 }]),
            { concurrency: "unbounded" },
          )
          expect(concurrent).toEqual(Array.from({ length: 4 }, () => ({ [gamma.id]: 1 })))
          yield* store.endDataKeyRotations([alpha.id, "no-such-project"])
          yield* store.endDataKeyRotations([])
          expect(
            yield* marked([
              { projectId: alpha.id, fromVersion: 2 },
              { projectId: beta.id, fromVersion: 9 },
            ]),
          ).toEqual({ [alpha.id]: 2, [beta.id]: 3 })
          // A project's mark goes with it (rule 4).
          yield* store.deleteProject({ projectId: beta.id, audit: audit(beta.id, "project.deleted", "beta") })
          expect(yield* marked([{ projectId: beta.id, fromVersion: 1 }])).toEqual({})
        }),
      ))

    it("replaces a data key version only if it is still the one read, current or older (rule 10)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId } = yield* project("alpha")
          const { project: beta } = yield* project("beta")
          yield* store.addDataKey({ projectId: alpha.id, expectedVersion: 1, dataKey: "cdk1.v2" })
          const replace = (version: number, expected: string, next: string) =>
            store.replaceDataKey({ projectId: alpha.id, version, expected, next })
          expect(yield* replace(1, "stale", "x")).toBe(false)
          expect(yield* replace(2, alpha.dataKey, "x")).toBe(false)
          expect(yield* replace(3, "cdk1.v2", "x")).toBe(false)
          expect(yield* replace(1, alpha.dataKey, "cdk1.v1-rewrapped")).toBe(true)
          expect(yield* replace(2, "cdk1.v2", "cdk1.v2-rewrapped")).toBe(true)
          expect(yield* store.findDataKey(alpha.id, 1)).toBe("cdk1.v1-rewrapped")
          expect((yield* store.findProjectById(alpha.id, ownerId))?.project).toMatchObject({
            dataKey: "cdk1.v2-rewrapped",
            dataKeyVersion: 2,
          })
          expect(yield* store.findDataKey(beta.id, 1)).toBe(beta.dataKey)
        }),
      ))

    it("lists a project's sealed values outside a prefix a page at a time, and replaces each only if unchanged (rule 10)", () =>
      run(({ store, project }) =>
        Effect.gen(function* () {
          const { project: alpha, ownerId, environments } = yield* project("alpha", ["development", "production"])
          const { project: beta, environments: betaEnvironments } = yield* project("beta")
          const write = (environmentId: string, projectId: string, key: string, values: ReadonlyArray<string>) =>
            Effect.gen(function* () {
              const secretId = nextId("secret")
              for (const [i, value] of values.entries()) {
                yield* store.writeSecret({
                  environmentId,
                  key,
                  expectedVersion: i,
                  secretId,
                  value,
                  empty: false,
                  userId: ownerId,
                  at: at(i),
                  audit: audit(projectId, "secret.updated", key),
                })
              }
              return secretId
            })
          const [development, production] = environments
          const first = yield* write(development!.id, alpha.id, "FIRST", ["csv1.a", "csv2.1.b", "csv2.2.c"])
          yield* write(production!.id, alpha.id, "SECOND", ["csv2.2.d"])
          const third = yield* write(production!.id, alpha.id, "THIRD", ["csv2.1.e"])
          yield* write(betaEnvironments[0]!.id, beta.id, "FIRST", ["csv1.z"])
          const list = (after?: SecretStore.SealedRowCursor, limit = 10, except = "csv2.2.") =>
            store.listSealedValues({ projectId: alpha.id, except, after, limit })
          const expected = [
            { secretId: first, environmentId: development!.id, key: "FIRST", version: 1, value: "csv1.a" },
            { secretId: first, environmentId: development!.id, key: "FIRST", version: 2, value: "csv2.1.b" },
            { secretId: third, environmentId: production!.id, key: "THIRD", version: 1, value: "csv2.1.e" },
          ].sort((a, b) => (a.secretId < b.secretId ? -1 : a.secretId > b.secretId ? 1 : a.version - b.version))
          expect(yield* list()).toEqual(expected)
          // Pages in (secret, version) order, each after the last row of the one before.
          const paged: Array<SecretStore.SealedRow> = []
          let page = yield* list(undefined, 2)
          while (page.length > 0) {
            paged.push(...page)
            page = yield* list(page.at(-1), 2)
          }
          expect(paged).toEqual(expected)
          // The prefix is text, not a pattern: `_` and `%` match only themselves.
          expect(yield* list(undefined, 10, "csv_.")).toHaveLength(5)
          expect(yield* list(undefined, 10, "%")).toHaveLength(5)

          const replaced = yield* store.replaceSealedValues([
            { secretId: first, version: 1, expected: "csv1.a", next: "csv2.2.a" },
            { secretId: first, version: 2, expected: "changed meanwhile", next: "csv2.2.lost" },
            { secretId: "no-such-secret", version: 1, expected: "csv1.a", next: "csv2.2.x" },
          ])
          expect(replaced).toBe(1)
          const read = (version: number) =>
            store
              .readSecret({ environmentId: development!.id, key: "FIRST", version })
              .pipe(Effect.map((found) => found?.sealed?.value))
          expect([yield* read(1), yield* read(2), yield* read(3)]).toEqual(["csv2.2.a", "csv2.1.b", "csv2.2.c"])
          expect((yield* list()).map((row) => row.value).sort()).toEqual(["csv2.1.b", "csv2.1.e"])
          expect(yield* store.replaceSealedValues([])).toBe(0)
          // Nothing of the other project was listed or touched.
          expect(
            (yield* store.readSecret({ environmentId: betaEnvironments[0]!.id, key: "FIRST" }))?.sealed?.value,
          ).toBe("csv1.z")
        }),
      ))

    describe.runIf(options.breakAuditLog !== undefined)("when the audit log refuses writes (rules 1 and 2)", () => {
      it("returns no value from an audited read or export, and changes nothing", () =>
        run(({ store, project, person, context }) =>
          Effect.gen(function* () {
            const { project: alpha, ownerId, environments } = yield* project("alpha")
            const env = environments[0]!
            const [written] = yield* writeVersions(store, env.id, alpha.id, "K", 1, ownerId)
            const member = yield* person()
            yield* join(store, alpha.id, member)
            const memberKey = apiKeyRecord(alpha.id, member)
            yield* store.createApiKey({ apiKey: memberKey, audit: audit(alpha.id, "api_key.created", memberKey.name) })
            yield* options.breakAuditLog!.pipe(Effect.provide(context), Effect.orDie)
            const { projectId: _p, environmentId: _e, ...draft } = audit(alpha.id, "secret.read", "K")
            const attempts = [
              store.readSecret({ environmentId: env.id, key: "K", audit: audit(alpha.id, "secret.read", "K") }),
              store.readSecretAt({ slug: "alpha", userId: ownerId, environment: env.name, key: "K", audit: draft }),
              store.readSecret({
                environmentId: env.id,
                key: "K",
                version: 1,
                audit: audit(alpha.id, "secret.read", "K@1"),
              }),
              store.exportSecrets({ environmentId: env.id, audit: audit(alpha.id, "secrets.exported", "json") }),
              store.writeSecret({
                environmentId: env.id,
                key: "K",
                expectedVersion: 1,
                secretId: written!.secretId,
                value: "v2",
                empty: false,
                userId: ownerId,
                at: at(),
                audit: audit(alpha.id, "secret.updated", "K"),
              }),
              store.deleteSecret({ environmentId: env.id, key: "K", audit: audit(alpha.id, "secret.deleted", "K") }),
              store.deleteEnvironment({ environmentId: env.id, audit: audit(alpha.id, "environment.deleted", "x") }),
              store.removeMember({
                projectId: alpha.id,
                userId: member,
                audit: audit(alpha.id, "member.removed", "x"),
                keyAudit: keyAudit(alpha.id),
              }),
              store.deleteProject({ projectId: alpha.id, audit: audit(alpha.id, "project.deleted", "alpha") }),
            ]
            for (const attempt of attempts) {
              const exit = yield* Effect.exit(attempt as Effect.Effect<unknown, unknown>)
              expect(Exit.isFailure(exit)).toBe(true)
            }
            const secret = yield* store.findSecret(env.id, "K")
            expect(secret?.version).toBe(1)
            expect((yield* store.listVersions(secret!.id)).map((v) => v.version)).toEqual([1])
            expect(yield* store.findEnvironment(alpha.id, env.name)).toBeDefined()
            expect((yield* store.findProject("alpha", member))?.role).toBe("write")
            expect(yield* store.findApiKey(memberKey.id)).toEqual(memberKey)
          }),
        ))
    })
  })
}

/** `removeMember`'s maker of a removed key's record, as the use case's: the key's name is the target. */
const keyAudit = (projectId: string) => (apiKey: SecretStore.ApiKeyRecord) =>
  Effect.sync(() => audit(projectId, "api_key.deleted", apiKey.name))

const apiKeyRecord = (projectId: string, userId: string): SecretStore.ApiKeyRecord => {
  const id = nextId("key")
  return {
    id,
    projectId,
    userId,
    name: `key ${id}`,
    keyPrefix: "cfk_abcdefgh",
    keyHash: `hash-${id}`,
    scope: "read",
    expiresAt: null,
    lastUsedAt: null,
    createdAt: at(),
  }
}
