/**
 * The SecretStore port in process memory: the reference implementation of its rules, used by the use-case and
 * HTTP tests and by anyone embedding the core without a database. It lives beside the port (as the Cache and
 * KeyValueStore precedents do) because it is pure: maps in memory, no I/O.
 *
 * Every method runs as one synchronous step, so nothing can interleave with it: that is what makes each write
 * and its audit record atomic (rules 1 and 2) and lets exactly one of several concurrent writers win (rules 3
 * and 7). Records are frozen copies, so a caller cannot change stored state by mutating what it was given.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Accounts, emailKey } from "../Accounts.js"
import { isPending } from "../domain/people.js"
import type { MemberRole } from "../domain/permissions.js"
import {
  AlreadyMember,
  EnvironmentExists,
  EnvironmentGone,
  ProjectExists,
  ProjectGone,
  VersionConflict,
} from "../errors.js"
import {
  type ApiKeyRecord,
  type AuditFilter,
  type AuditRecord,
  type EnvironmentRecord,
  type InviteRecord,
  type MemberRecord,
  type ProjectAccess,
  type ProjectRecord,
  type SealedVersion,
  type SecretRecord,
  SecretStore,
} from "../SecretStore.js"
import { dataKeys, type StoredVersion } from "./memoryDataKeys.js"

const frozen = <A extends object>(value: A): A => Object.freeze({ ...value })

/** What a read answers of a stored version: `restoredFrom` is the history's alone (`SealedVersion`). */
const sealedOf = (stored: StoredVersion | undefined): SealedVersion | undefined => {
  if (stored === undefined) return undefined
  const { restoredFrom: _, ...sealed } = stored
  return sealed
}

/** Rule 12, one record at a time: the reference for the SQL store's `where`. */
const matches =
  (filter: AuditFilter) =>
  (entry: AuditRecord): boolean =>
    (filter.actions === undefined || filter.actions.includes(entry.action)) &&
    (filter.secretKey === undefined ||
      entry.targetKey === filter.secretKey ||
      entry.targetKey.startsWith(`${filter.secretKey}@`)) &&
    (filter.userEmailKey === undefined || emailKey(entry.userEmail) === filter.userEmailKey) &&
    (filter.environmentId === undefined || entry.environmentId === filter.environmentId) &&
    (filter.apiKeyId === undefined || entry.apiKey?.id === filter.apiKeyId)

/** The part of `Accounts` the store reads: an API key's holder (rule 11); the accounts live beside it, not in it. */
export type Holders = Pick<Accounts["Service"], "findById">

export const make = (holders: Holders): SecretStore["Service"] => {
  const projects = new Map<string, ProjectRecord>()
  /** projectId → userId → membership */
  const members = new Map<string, Map<string, MemberRecord>>()
  const invites = new Map<string, InviteRecord>()
  const environments = new Map<string, EnvironmentRecord>()
  const secrets = new Map<string, SecretRecord>()
  /** secretId → versions, oldest first */
  const versions = new Map<string, Array<StoredVersion>>()
  const apiKeys = new Map<string, ApiKeyRecord>()
  const olderDataKeys = new Map<string, Map<number, string>>()
  const rotations = new Map<string, number>()
  const audit: Array<AuditRecord> = []

  const record = (entry: AuditRecord) => {
    audit.push(frozen({ ...entry, apiKey: entry.apiKey === null ? null : frozen(entry.apiKey) }))
  }

  const accessOf = (project: ProjectRecord, userId: string): ProjectAccess | undefined => {
    const member = members.get(project.id)?.get(userId)
    return member === undefined ? undefined : { project, role: member.role }
  }

  const findProjectEnvironmentSync = (slug: string, userId: string, name: string, key: string | undefined) => {
    for (const project of projects.values()) {
      if (project.slug !== slug) continue
      const access = accessOf(project, userId)
      if (access === undefined) return undefined
      const environment = environmentsOf(project.id).find((candidate) => candidate.name === name)
      const secret = environment === undefined || key === undefined ? undefined : findSecretSync(environment.id, key)
      return { access, environment, secret }
    }
    return undefined
  }

  const environmentsOf = (projectId: string) =>
    [...environments.values()].filter((environment) => environment.projectId === projectId)

  const secretsOf = (environmentId: string) =>
    [...secrets.values()].filter((secret) => secret.environmentId === environmentId)

  const findSecretSync = (environmentId: string, key: string) =>
    secretsOf(environmentId).find((secret) => secret.key === key)

  const dropSecret = (secret: SecretRecord) => {
    secrets.delete(secret.id)
    versions.delete(secret.id)
  }

  const dropEnvironment = (environment: EnvironmentRecord) => {
    for (const secret of secretsOf(environment.id)) dropSecret(secret)
    environments.delete(environment.id)
  }

  return SecretStore.of({
    createProject: ({ project, environments: initial, audit: entry }) =>
      Effect.suspend(() => {
        for (const existing of projects.values()) {
          if (existing.slug === project.slug) {
            return Effect.fail(
              new ProjectExists({ slug: project.slug, message: `A project with the slug "${project.slug}" exists` }),
            )
          }
        }
        projects.set(project.id, frozen(project))
        members.set(
          project.id,
          new Map([
            [project.ownerId, frozen({ userId: project.ownerId, role: "owner", createdAt: project.createdAt })],
          ]),
        )
        for (const environment of initial) environments.set(environment.id, frozen(environment))
        record(entry)
        return Effect.void
      }),

    findProject: (slug, userId) =>
      Effect.sync(() => {
        for (const project of projects.values()) if (project.slug === slug) return accessOf(project, userId)
        return undefined
      }),

    findProjectEnvironment: (slug, userId, name, key) =>
      Effect.sync(() => findProjectEnvironmentSync(slug, userId, name, key)),

    findProjectById: (projectId, userId) =>
      Effect.sync(() => {
        const project = projects.get(projectId)
        return project === undefined ? undefined : accessOf(project, userId)
      }),

    listProjects: (userId) =>
      Effect.sync(() => [...projects.values()].flatMap((project) => accessOf(project, userId) ?? [])),

    deleteProject: ({ projectId, audit: entry }) =>
      Effect.sync(() => {
        if (!projects.has(projectId)) return false
        for (const environment of environmentsOf(projectId)) dropEnvironment(environment)
        for (const [id, invite] of invites) if (invite.projectId === projectId) invites.delete(id)
        for (const [id, key] of apiKeys) if (key.projectId === projectId) apiKeys.delete(id)
        members.delete(projectId)
        olderDataKeys.delete(projectId)
        rotations.delete(projectId)
        projects.delete(projectId)
        record(entry)
        return true
      }),

    listMembers: (projectId) => Effect.sync(() => [...(members.get(projectId)?.values() ?? [])]),

    setMemberRole: ({ projectId, userId, role, audit: entry }) =>
      Effect.sync(() => {
        const people = members.get(projectId)
        const member = people?.get(userId)
        if (people === undefined || member === undefined) return false
        people.set(userId, frozen({ ...member, role }))
        record(entry)
        return true
      }),

    removeMember: ({ projectId, userId, audit: entry, keyAudit }) => {
      const keysOf = () => [...apiKeys.values()].filter((key) => key.projectId === projectId && key.userId === userId)
      // The keys' records are made (an effect) before the one synchronous step that removes; should the member's
      // keys have changed in between, they are made again, so that every key removed has exactly its record.
      const attempt: Effect.Effect<boolean> = Effect.suspend(() => {
        const keys = keysOf()
        return Effect.flatMap(Effect.forEach(keys, keyAudit), (records) =>
          Effect.suspend(() => {
            const people = members.get(projectId)
            if (people === undefined || !people.has(userId)) return Effect.succeed(false)
            const now = keysOf()
            if (now.length !== keys.length || now.some((key, index) => key !== keys[index])) return attempt
            people.delete(userId)
            for (const key of keys) apiKeys.delete(key.id)
            record(entry)
            for (const keyRecord of records) record(keyRecord)
            return Effect.succeed(true)
          }),
        )
      })
      return attempt
    },

    createInvite: ({ invite, audit: entry }) =>
      Effect.suspend(() => {
        if (!projects.has(invite.projectId)) return Effect.fail(new ProjectGone())
        invites.set(invite.id, frozen(invite))
        record(entry)
        return Effect.void
      }),

    listInvites: (projectId) =>
      Effect.sync(() => [...invites.values()].filter((invite) => invite.projectId === projectId)),

    findInvite: (tokenHash) =>
      Effect.sync(() => [...invites.values()].find((invite) => invite.tokenHash === tokenHash)),

    deleteInvite: ({ projectId, inviteId, audit: entry }) =>
      Effect.sync(() => {
        const invite = invites.get(inviteId)
        if (invite === undefined || invite.projectId !== projectId || invite.usedAt !== null) return false
        invites.delete(inviteId)
        record(entry)
        return true
      }),

    removeSpentInvites: (now) =>
      Effect.sync(() => {
        let removed = 0
        for (const [id, invite] of invites) {
          if (isPending(invite, now)) continue
          invites.delete(id)
          removed++
        }
        return removed
      }),
    acceptInvite: ({ inviteId, userId, at, audit: entry }) =>
      Effect.suspend(() => {
        const invite = invites.get(inviteId)
        const people = invite === undefined ? undefined : members.get(invite.projectId)
        const project = invite === undefined ? undefined : projects.get(invite.projectId)
        if (invite === undefined || people === undefined || project === undefined || invite.usedAt !== null) {
          return Effect.succeed(undefined)
        }
        if (people.has(userId)) {
          return Effect.fail(new AlreadyMember({ message: "You are already in this project" }))
        }
        const role: MemberRole = invite.role
        people.set(userId, frozen({ userId, role, createdAt: at }))
        invites.set(inviteId, frozen({ ...invite, usedAt: at }))
        record(entry)
        return Effect.succeed(project)
      }),

    listEnvironments: (projectId) => Effect.sync(() => environmentsOf(projectId)),

    findEnvironment: (projectId, name) =>
      Effect.sync(() => environmentsOf(projectId).find((environment) => environment.name === name)),

    createEnvironment: ({ environment, audit: entry }) =>
      Effect.suspend((): Effect.Effect<void, EnvironmentExists | ProjectGone> => {
        if (!projects.has(environment.projectId)) return Effect.fail(new ProjectGone())
        if (environmentsOf(environment.projectId).some((existing) => existing.name === environment.name)) {
          return Effect.fail(
            new EnvironmentExists({
              name: environment.name,
              message: `An environment named "${environment.name}" exists in this project`,
            }),
          )
        }
        environments.set(environment.id, frozen(environment))
        record(entry)
        return Effect.void
      }),

    deleteEnvironment: ({ environmentId, audit: entry }) =>
      Effect.sync(() => {
        const environment = environments.get(environmentId)
        if (environment === undefined) return false
        dropEnvironment(environment)
        record(entry)
        return true
      }),

    listSecrets: (environmentId) => Effect.sync(() => secretsOf(environmentId)),

    findSecret: (environmentId, key) => Effect.sync(() => findSecretSync(environmentId, key)),

    readSecretAt: ({ slug, userId, projectId, environment: name, key, audit: entry }) =>
      Effect.sync(() => {
        const found = findProjectEnvironmentSync(slug, userId, name, key)
        if (found === undefined || (projectId !== undefined && found.access.project.id !== projectId)) return undefined
        const { secret, environment } = found
        const sealed =
          secret === undefined
            ? undefined
            : sealedOf(versions.get(secret.id)?.find((candidate) => candidate.version === secret.version))
        if (sealed !== undefined && environment !== undefined) {
          record({ ...entry, projectId: found.access.project.id, environmentId: environment.id })
        }
        return { ...found, sealed }
      }),

    readSecret: ({ environmentId, key, version, audit: entry }) =>
      Effect.sync(() => {
        const secret = findSecretSync(environmentId, key)
        if (secret === undefined) return undefined
        const wanted = version ?? secret.version
        const sealed = sealedOf(versions.get(secret.id)?.find((candidate) => candidate.version === wanted))
        if (sealed !== undefined && entry !== undefined) record(entry)
        return { secret, sealed }
      }),

    writeSecret: (input) =>
      Effect.suspend((): Effect.Effect<{ secretId: string; version: number }, VersionConflict | EnvironmentGone> => {
        if (!environments.has(input.environmentId)) return Effect.fail(new EnvironmentGone())
        const existing = findSecretSync(input.environmentId, input.key)
        const current = existing?.version ?? 0
        if (current !== input.expectedVersion || (existing !== undefined && existing.id !== input.secretId)) {
          return Effect.fail(
            new VersionConflict({ message: `Secret "${input.key}" changed while it was being written; try again` }),
          )
        }
        const version = current + 1
        const secret: SecretRecord =
          existing === undefined
            ? {
                id: input.secretId,
                environmentId: input.environmentId,
                key: input.key,
                version,
                empty: input.empty,
                createdAt: input.at,
                updatedAt: input.at,
              }
            : { ...existing, version, empty: input.empty, updatedAt: input.at }
        secrets.set(secret.id, frozen(secret))
        const history = versions.get(secret.id) ?? []
        history.push(
          frozen({
            version,
            value: input.value,
            userId: input.userId,
            createdAt: input.at,
            restoredFrom: input.restoredFrom ?? null,
          }),
        )
        versions.set(secret.id, history)
        record(input.audit)
        return Effect.succeed({ secretId: secret.id, version })
      }),

    deleteSecret: ({ environmentId, key, audit: entry, expected }) =>
      Effect.sync(() => {
        const secret = findSecretSync(environmentId, key)
        if (secret === undefined) return false
        if (expected !== undefined && (secret.id !== expected.secretId || secret.version !== expected.version))
          return false
        dropSecret(secret)
        record(entry)
        return true
      }),

    listVersions: (secretId) =>
      Effect.sync(() =>
        (versions.get(secretId) ?? []).map(({ version, createdAt, userId, restoredFrom }) => ({
          version,
          createdAt,
          userId,
          restoredFrom,
        })),
      ),

    exportSecrets: ({ environmentId, audit: entry }) =>
      Effect.sync(() => {
        const entries = secretsOf(environmentId).flatMap((secret) => {
          const sealed = versions.get(secret.id)?.find((candidate) => candidate.version === secret.version)
          return sealed === undefined
            ? []
            : [{ secretId: secret.id, key: secret.key, version: secret.version, value: sealed.value }]
        })
        record(entry)
        return entries
      }),

    createApiKey: ({ apiKey, audit: entry }) =>
      Effect.sync(() => {
        if (members.get(apiKey.projectId)?.has(apiKey.userId) !== true) return false
        apiKeys.set(apiKey.id, frozen(apiKey))
        record(entry)
        return true
      }),

    findApiKeyByHash: (keyHash) =>
      Effect.suspend(() => {
        const key = [...apiKeys.values()].find((candidate) => candidate.keyHash === keyHash)
        if (key === undefined) return Effect.undefined
        return Effect.map(holders.findById(key.userId), (holder) => ({ key, holder }))
      }),

    findApiKey: (id) => Effect.sync(() => apiKeys.get(id)),

    listApiKeys: (projectIds) =>
      Effect.sync(() => {
        const wanted = new Set(projectIds)
        return [...apiKeys.values()].filter((key) => wanted.has(key.projectId))
      }),

    rotateApiKey: ({ id, previousKeyHash, keyHash, keyPrefix, expiresAt, audit: entry }) =>
      Effect.sync(() => {
        const key = apiKeys.get(id)
        if (key === undefined || key.keyHash !== previousKeyHash) return false
        apiKeys.set(id, frozen({ ...key, keyHash, keyPrefix, expiresAt }))
        record(entry)
        return true
      }),

    deleteApiKey: ({ id, audit: entry }) =>
      Effect.sync(() => {
        if (!apiKeys.delete(id)) return false
        record(entry)
        return true
      }),

    touchApiKey: (id, at) =>
      Effect.sync(() => {
        const key = apiKeys.get(id)
        if (key !== undefined) apiKeys.set(id, frozen({ ...key, lastUsedAt: at }))
      }),

    listAudit: ({ projectId, filter = {}, limit, offset }) =>
      Effect.sync(() =>
        // The one order a store keeps, since the log is answered a page at a time: newest first, and in one
        // millisecond the last appended first (the array holds appends in order, and sorting is stable).
        [...audit]
          .reverse()
          .filter((entry) => entry.projectId === projectId)
          .filter(matches(filter))
          .sort((a, b) => b.createdAt - a.createdAt)
          .slice(offset, offset + limit),
      ),

    ...dataKeys({ projects, olderDataKeys, rotations, versions, environmentsOf, secretsOf }),
  })
}

/** A fresh, empty store at every build, reading holders from the `Accounts` it is given. */
export const layer: Layer.Layer<SecretStore, never, Accounts> = Layer.effect(SecretStore, Effect.map(Accounts, make))
