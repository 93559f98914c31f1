/**
 * The SecretStore port: where projects, people, environments, sealed secret versions, API keys and the audit log
 * are kept. The use cases own every rule about who may do what, every order a list is shown in (`domain/order.ts`),
 * what counts as a pending invite, who may see a key or change a member (`domain/people.ts`), what an audit record
 * says (`usecases/audit.ts`) and every piece of cryptography. A store decides nothing: it keeps rows, and keeps
 * the few promises below that a use case cannot keep from outside, because they need several rows to change (or
 * be read) at once.
 *
 * Rows carry times as epoch milliseconds (`EpochMillis`, the kernel's one time type at the ports); how a store
 * keeps them is its own affair (the SQL store writes ISO 8601 text). Secret values reach a store only sealed (`Cipher.seal`); API keys and invite tokens only as their
 * SHA-256. A store never sees a plaintext value or a credential.
 *
 * Rules every adapter MUST keep (each is checked by the contract suite in `test/contract/src/secretStore.ts`):
 *
 * 1. Atomic writes. Each method that takes an `audit` record writes it in the same transaction as its change:
 *    both happen or neither does. A method that fails changes nothing. A change that removes rows the caller could
 *    not list beforehand (`removeMember`'s API keys) takes a function that makes the record of each, and writes
 *    one record per row it removed, in that same transaction.
 * 2. Audited reads. `readSecret` (with `audit`), `readSecretAt` and `exportSecrets` write their audit record in the
 *    same transaction as the read: when the record cannot be written they fail and return no value.
 * 3. Versions. `writeSecret` succeeds only when `expectedVersion` is the secret's current version (0: the key
 *    does not exist yet) and, when the key exists, the secret is still the one with id `secretId` (not one deleted
 *    and re-created under the same key), and then stores exactly version `expectedVersion + 1`, with the
 *    `restoredFrom` it was given (null when none), which `listVersions` answers; otherwise it fails with
 *    `VersionConflict` and changes nothing. Of concurrent writes with the same expected version exactly one
 *    succeeds, so versions stay contiguous and no acknowledged version is lost. `deleteSecret` with `expected`
 *    deletes only while the key holds the secret with that id at that version; otherwise it changes nothing.
 * 4. Cascades. Deleting a project removes its environments, secrets, versions, members, invites and API keys;
 *    deleting an environment removes its secrets and their versions; deleting a secret removes its versions;
 *    removing a member removes that person's API keys for the project. Audit records are kept.
 * 5. Uniqueness. One project per slug (`ProjectExists`), one environment per name within a project
 *    (`EnvironmentExists`), one secret per key within an environment, one membership per person and project
 *    (`AlreadyMember`), one API key per hash, one invite per token hash.
 * 6. Order. Lists come in any order (the use cases sort them), except the audit log, which a store answers a page
 *    at a time: newest first by `createdAt`, and records of one millisecond in the reverse of the order they were
 *    appended, whatever their ids, the same on every instance that shares the store.
 * 7. Invites. `acceptInvite` takes an invite only if it is still unused, and makes the person a member in the same
 *    transaction; when the person is already in the project it fails with `AlreadyMember` and the invite stays
 *    unused. Of concurrent accepts of one invite at most one succeeds. Whether an invite has expired is the use
 *    case's question (`isPending`), asked before.
 * 8. Parents. A write under a parent that no longer exists (deleted meanwhile) fails with `ProjectGone` or
 *    `EnvironmentGone` instead of leaving an orphan. An API key's parent is its holder's membership: `createApiKey`
 *    stores a key only while the holder is a member of its project, in the same step as it checks, so that a key
 *    never outlives a removal that ran meanwhile (and never comes back to life should the person join again).
 * 9. Failures. A store that cannot be reached fails with `StoreUnavailable`, never with a wrong answer.
 * 10. Data keys. A project's data key has versions 1, 2, …; `ProjectRecord.dataKey` is the newest, which seals new
 *    values, and every older version stays findable (`findDataKey`) for as long as the project exists, since values
 *    sealed under it may remain. `addDataKey` makes a new version current only if the current one is still
 *    `expectedVersion` (of concurrent calls exactly one succeeds), keeping the old one; `replaceDataKey` and
 *    `replaceSealedValues` change only what still holds the expected text (compare-and-set), and nothing else:
 *    a row written or deleted meanwhile is left as it is. A rotation under way is marked per project with the
 *    version it started from (`markDataKeyRotations` keeps a mark already there); marks go with `endDataKeyRotations`
 *    or with their project.
 * 11. Holders. `findApiKeyByHash` answers the key with its holder's account as the `Accounts` port over the same
 *    storage has it at that moment (`holder` undefined once the account is gone): a key is used on every API-key
 *    request and its holder read with it, so a store that can answers both with one read (issue 10).
 * 12. Audit filters. `listAudit` answers only the records its `filter` matches (every condition of `AuditFilter`
 *    that is given), then pages that list: `offset` and `limit` count matching records only, in rule 6's order.
 * 13. Audit records come back as they were written, `apiKey` included: the key that acted and its name then, or
 *    null, whatever has become of the key since (deleted, rotated).
 */
import type { EpochMillis, StoreUnavailable } from "@coffer/kernel"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { User } from "./Accounts.js"
import type { DataKeyRecord, SealedRow, SealedRowCursor } from "./dataKeyRecords.js"
import type { AuditAction } from "./domain/audit.js"
import type { KeyScope, MemberRole, Role } from "./domain/permissions.js"
import type {
  AlreadyMember,
  EnvironmentExists,
  EnvironmentGone,
  ProjectExists,
  ProjectGone,
  VersionConflict,
} from "./errors.js"

export type { DataKeyRecord, SealedRow, SealedRowCursor } from "./dataKeyRecords.js"

export interface ProjectRecord {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly ownerId: string
  readonly createdAt: EpochMillis
  /** The project's current data key, wrapped by the master key (`Cipher.newDataKey`): it seals new values. */
  readonly dataKey: string
  /** The version of `dataKey` (rule 10): 1 at creation, one more at each data-key rotation. */
  readonly dataKeyVersion: number
}

/** A project as one person sees it: with their role in it. */
export interface ProjectAccess {
  readonly project: ProjectRecord
  readonly role: Role
}

export interface EnvironmentRecord {
  readonly id: string
  readonly projectId: string
  readonly name: string
  readonly createdAt: EpochMillis
}

/** A person in a project. The owner is one too, with role `owner`, from the project's creation. */
export interface MemberRecord {
  readonly userId: string
  readonly role: Role
  readonly createdAt: EpochMillis
}

export interface InviteRecord {
  readonly id: string
  readonly projectId: string
  readonly role: MemberRole
  /** SHA-256 (hex) of the invite token; the token itself is never stored. */
  readonly tokenHash: string
  readonly createdBy: string
  readonly createdAt: EpochMillis
  readonly expiresAt: EpochMillis
  /** When it was accepted; `null` while pending. A withdrawn invite has no row. */
  readonly usedAt: EpochMillis | null
}

export interface SecretRecord {
  readonly id: string
  readonly environmentId: string
  readonly key: string
  /** The current (highest) version. */
  readonly version: number
  /** Whether the current version's value is the empty string (`WriteSecretInput.empty`). */
  readonly empty: boolean
  readonly createdAt: EpochMillis
  readonly updatedAt: EpochMillis
}

export interface VersionRecord {
  readonly version: number
  readonly createdAt: EpochMillis
  /** Who wrote it; `null` for versions imported from before history was kept. */
  readonly userId: string | null
  /**
   * The version a restore brought back (`WriteSecretInput.restoredFrom`); `null` for an ordinary write and for
   * versions stored before restores were recorded, since those cannot be told apart afterwards.
   */
  readonly restoredFrom: number | null
}

/** A version as a read answers it: the history's item without `restoredFrom`, which no read needs (issue 10). */
export interface SealedVersion extends Omit<VersionRecord, "restoredFrom"> {
  /** The sealed value (`Cipher.seal`), bound to project, environment, secret, key and version. */
  readonly value: string
}

export interface ExportRecord {
  readonly secretId: string
  readonly key: string
  readonly version: number
  /** The sealed value of the current version. */
  readonly value: string
}

export interface ApiKeyRecord {
  readonly id: string
  readonly projectId: string
  /** The holder: the key acts as this person. */
  readonly userId: string
  readonly name: string
  /** The first characters of the key, shown so people can tell their keys apart; not enough to use it. */
  readonly keyPrefix: string
  /** SHA-256 (hex) of the key; the key itself is never stored. */
  readonly keyHash: string
  readonly scope: KeyScope
  readonly expiresAt: EpochMillis | null
  readonly lastUsedAt: EpochMillis | null
  readonly createdAt: EpochMillis
}

/** An API key found by its hash, with the account it acts as (rule 11). */
export interface ApiKeyUse {
  readonly key: ApiKeyRecord
  /** The holder's account now; `undefined` when it has been removed. */
  readonly holder: User | undefined
}

/** The API key an audited action was done with, as it was then: its name is kept, as the key may be deleted. */
export interface AuditKey {
  readonly id: string
  readonly name: string
}

export interface AuditRecord {
  /** Sortable: records written later in one process have greater ids (see `Audit.ts`). */
  readonly id: string
  readonly projectId: string
  readonly environmentId: string | null
  readonly userId: string
  /** The e-mail at the time of the action, kept as it was. */
  readonly userEmail: string
  readonly action: AuditAction
  /** Never a secret value (see `domain/audit.ts`). */
  readonly targetKey: string
  readonly ipAddress: string | null
  /** The API key the person acted through (rule 13); null when they acted with a session. */
  readonly apiKey: AuditKey | null
  readonly createdAt: EpochMillis
}

/**
 * Which records of a project's audit log `listAudit` answers (rule 12): those meeting every condition given; with
 * none, all of them. Comparisons are exact (case included) unless said otherwise.
 */
export interface AuditFilter {
  /** Records of one of these actions; an empty list matches nothing. */
  readonly actions?: ReadonlyArray<AuditAction> | undefined
  /**
   * Records whose `targetKey` is this secret key, or this key followed by `@` and anything: the `<KEY>@<n>` of an
   * old version's read or a restore. A secret key never holds `@`, so no other key's records match.
   */
  readonly secretKey?: string | undefined
  /** Records whose `userEmail`, compared by `Accounts.emailKey` (NFC, lower case), has this key. */
  readonly userEmailKey?: string | undefined
  /** Records of this environment. */
  readonly environmentId?: string | undefined
  /** Records made with the API key of this id (`AuditRecord.apiKey`), whether or not the key still exists. */
  readonly apiKeyId?: string | undefined
}

/** A read that may come with an audit record written in the same transaction (rule 2). */
export interface ReadSecretInput {
  readonly environmentId: string
  readonly key: string
  /** Which version; the current one when absent. */
  readonly version?: number | undefined
  /** Written only when the requested version exists. */
  readonly audit?: AuditRecord | undefined
}

/**
 * A secret's current value asked by its path, as a person reaches it: `findProjectEnvironment` and an audited
 * `readSecret` in one (the API's most frequent request: one round trip on Postgres instead of two).
 */
export interface ReadSecretAtInput {
  readonly slug: string
  readonly userId: string
  /** Only this project (an API key's own): another one under the slug is answered as if there were none. */
  readonly projectId?: string | undefined
  readonly environment: string
  readonly key: string
  /**
   * The read's record, written only when a current version was found, with the project and environment the store
   * found filled in.
   */
  readonly audit: Omit<AuditRecord, "projectId" | "environmentId">
}

export interface WriteSecretInput {
  readonly environmentId: string
  readonly key: string
  /** The version the writer read: 0 when the key did not exist (rule 3). */
  readonly expectedVersion: number
  /**
   * The id of the secret the writer read, or the id a new secret gets (`expectedVersion` 0). When the key exists,
   * the write succeeds only if it is still this secret (rule 3): values are sealed for their secret's id, so a
   * value sealed for a deleted secret must not land in the one re-created under its key.
   */
  readonly secretId: string
  /** Sealed for version `expectedVersion + 1`. */
  readonly value: string
  /**
   * Whether that value is the empty string, kept beside it: a list says which keys hold nothing without opening, or
   * auditing, a value (an empty value is most often one not filled in yet).
   */
  readonly empty: boolean
  readonly userId: string
  readonly at: EpochMillis
  readonly audit: AuditRecord
  /**
   * A restore's: the version whose value this one brings back, kept with the new version and answered by
   * `listVersions`. Absent (or null) for an ordinary write. It rides the write's own statement: nothing more is read.
   */
  readonly restoredFrom?: number | null | undefined
}

export class SecretStore extends Context.Service<
  SecretStore,
  {
    // Projects
    /** Creates the project, its environments and the owner's membership (rule 5: `ProjectExists`). */
    readonly createProject: (input: {
      readonly project: ProjectRecord
      readonly environments: ReadonlyArray<EnvironmentRecord>
      readonly audit: AuditRecord
    }) => Effect.Effect<void, ProjectExists | StoreUnavailable>
    /** The project with this slug, if `userId` is in it. */
    readonly findProject: (slug: string, userId: string) => Effect.Effect<ProjectAccess | undefined, StoreUnavailable>
    /**
     * The project with this slug, if `userId` is in it, with its environment `name` (undefined when it has none)
     * and, when `key` is given, the secret under that key in it (undefined when there is none): what every secret
     * route looks up first, in one read (a write needs the secret's current version before it seals the next).
     */
    readonly findProjectEnvironment: (
      slug: string,
      userId: string,
      name: string,
      key?: string,
    ) => Effect.Effect<
      | {
          readonly access: ProjectAccess
          readonly environment: EnvironmentRecord | undefined
          readonly secret: SecretRecord | undefined
        }
      | undefined,
      StoreUnavailable
    >
    /** The project with this id, if `userId` is in it. */
    readonly findProjectById: (
      projectId: string,
      userId: string,
    ) => Effect.Effect<ProjectAccess | undefined, StoreUnavailable>
    /** Every project `userId` is in, by slug. */
    readonly listProjects: (userId: string) => Effect.Effect<ReadonlyArray<ProjectAccess>, StoreUnavailable>
    /** Deletes the project and everything in it (rule 4). False when it is already gone. */
    readonly deleteProject: (input: {
      readonly projectId: string
      readonly audit: AuditRecord
    }) => Effect.Effect<boolean, StoreUnavailable>

    // People
    readonly listMembers: (projectId: string) => Effect.Effect<ReadonlyArray<MemberRecord>, StoreUnavailable>
    /** Changes a member's role; false when `userId` is not a member. */
    readonly setMemberRole: (input: {
      readonly projectId: string
      readonly userId: string
      readonly role: MemberRole
      readonly audit: AuditRecord
    }) => Effect.Effect<boolean, StoreUnavailable>
    /**
     * Removes a member and their API keys for the project (rule 4), writing `audit` and then, for every key it
     * removed, the record `keyAudit` makes of that key (rule 1): a key created while the removal ran (rule 8) gets
     * its record too. False, and nothing written, when there is no such member.
     */
    readonly removeMember: (input: {
      readonly projectId: string
      readonly userId: string
      readonly audit: AuditRecord
      /** The record of one removed key; the use case's, since a store decides nothing about what the log says. */
      readonly keyAudit: (apiKey: ApiKeyRecord) => Effect.Effect<AuditRecord>
    }) => Effect.Effect<boolean, StoreUnavailable>
    readonly createInvite: (input: {
      readonly invite: InviteRecord
      readonly audit: AuditRecord
    }) => Effect.Effect<void, ProjectGone | StoreUnavailable>
    /** The project's invites, used or not (a withdrawn invite has no row). */
    readonly listInvites: (projectId: string) => Effect.Effect<ReadonlyArray<InviteRecord>, StoreUnavailable>
    /** The invite with this token hash, in whatever state. */
    readonly findInvite: (tokenHash: string) => Effect.Effect<InviteRecord | undefined, StoreUnavailable>
    /** Withdraws an unused invite; false when there is no unused invite with this id in the project. */
    readonly deleteInvite: (input: {
      readonly projectId: string
      readonly inviteId: string
      readonly audit: AuditRecord
    }) => Effect.Effect<boolean, StoreUnavailable>
    /**
     * Housekeeping: removes every invite that can no longer be accepted at `now` (used, or expired: the
     * complement of `isPending`); answers how many. Accepting one answers 404 whether its row is there or not.
     */
    readonly removeSpentInvites: (now: EpochMillis) => Effect.Effect<number, StoreUnavailable>
    /** Rule 7. The project joined; undefined when the invite is used (or gone). `at` is the joining time. */
    readonly acceptInvite: (input: {
      readonly inviteId: string
      readonly userId: string
      readonly at: EpochMillis
      readonly audit: AuditRecord
    }) => Effect.Effect<ProjectRecord | undefined, AlreadyMember | StoreUnavailable>

    // Environments
    readonly listEnvironments: (projectId: string) => Effect.Effect<ReadonlyArray<EnvironmentRecord>, StoreUnavailable>
    readonly findEnvironment: (
      projectId: string,
      name: string,
    ) => Effect.Effect<EnvironmentRecord | undefined, StoreUnavailable>
    readonly createEnvironment: (input: {
      readonly environment: EnvironmentRecord
      readonly audit: AuditRecord
    }) => Effect.Effect<void, EnvironmentExists | ProjectGone | StoreUnavailable>
    /** Deletes the environment with its secrets and their history; false when it is already gone. */
    readonly deleteEnvironment: (input: {
      readonly environmentId: string
      readonly audit: AuditRecord
    }) => Effect.Effect<boolean, StoreUnavailable>

    // Secrets
    readonly listSecrets: (environmentId: string) => Effect.Effect<ReadonlyArray<SecretRecord>, StoreUnavailable>
    readonly findSecret: (
      environmentId: string,
      key: string,
    ) => Effect.Effect<SecretRecord | undefined, StoreUnavailable>
    /** Rule 2. Undefined when there is no such secret; `sealed` undefined when it has no such version. */
    readonly readSecret: (
      input: ReadSecretInput,
    ) => Effect.Effect<
      { readonly secret: SecretRecord; readonly sealed: SealedVersion | undefined } | undefined,
      StoreUnavailable
    >
    /**
     * Rule 2. Undefined when `userId` is in no project with this slug (or not in `projectId`); otherwise what
     * `findProjectEnvironment` answers with `key`, and the current version's sealed value when there is one.
     */
    readonly readSecretAt: (input: ReadSecretAtInput) => Effect.Effect<
      | {
          readonly access: ProjectAccess
          readonly environment: EnvironmentRecord | undefined
          readonly secret: SecretRecord | undefined
          readonly sealed: SealedVersion | undefined
        }
      | undefined,
      StoreUnavailable
    >
    /** Rule 3. Answers the secret's id and the version written. */
    readonly writeSecret: (
      input: WriteSecretInput,
    ) => Effect.Effect<
      { readonly secretId: string; readonly version: number },
      VersionConflict | EnvironmentGone | StoreUnavailable
    >
    /**
     * Deletes the secret and its history; false when there is none. With `expected`, only while the key holds that
     * secret at that version (rule 3's check-and-set, for a deletion): false, and nothing changed, otherwise.
     */
    readonly deleteSecret: (input: {
      readonly environmentId: string
      readonly key: string
      readonly audit: AuditRecord
      readonly expected?: { readonly secretId: string; readonly version: number } | undefined
    }) => Effect.Effect<boolean, StoreUnavailable>
    readonly listVersions: (secretId: string) => Effect.Effect<ReadonlyArray<VersionRecord>, StoreUnavailable>
    /** Every secret's current sealed value, by key; rule 2. */
    readonly exportSecrets: (input: {
      readonly environmentId: string
      readonly audit: AuditRecord
    }) => Effect.Effect<ReadonlyArray<ExportRecord>, StoreUnavailable>

    // API keys
    /**
     * Stores the key if its holder is a member of its project (rule 8); false, and no record, when they are not
     * (removed meanwhile, or the project deleted, which removes its members).
     */
    readonly createApiKey: (input: {
      readonly apiKey: ApiKeyRecord
      readonly audit: AuditRecord
    }) => Effect.Effect<boolean, StoreUnavailable>
    /** Rule 11. */
    readonly findApiKeyByHash: (keyHash: string) => Effect.Effect<ApiKeyUse | undefined, StoreUnavailable>
    readonly findApiKey: (id: string) => Effect.Effect<ApiKeyRecord | undefined, StoreUnavailable>
    /** Every key of these projects (who may see which is `seesApiKey`'s question). */
    readonly listApiKeys: (
      projectIds: ReadonlyArray<string>,
    ) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, StoreUnavailable>
    /**
     * Gives the key a new hash and prefix (the old key stops working) and the given expiry, if its hash is still
     * `previousKeyHash`; false (and no record) when it is gone or was rotated since it was read.
     */
    readonly rotateApiKey: (input: {
      readonly id: string
      readonly previousKeyHash: string
      readonly keyHash: string
      readonly keyPrefix: string
      readonly expiresAt: EpochMillis | null
      readonly audit: AuditRecord
    }) => Effect.Effect<boolean, StoreUnavailable>
    readonly deleteApiKey: (input: {
      readonly id: string
      readonly audit: AuditRecord
    }) => Effect.Effect<boolean, StoreUnavailable>
    /** Records a use; bookkeeping only, so it writes no audit record. */
    readonly touchApiKey: (id: string, at: EpochMillis) => Effect.Effect<void, StoreUnavailable>

    // Audit log
    /** Rules 6 and 12: a page of the project's records that `filter` matches (all of them without one). */
    readonly listAudit: (input: {
      readonly projectId: string
      readonly filter?: AuditFilter | undefined
      readonly limit: number
      readonly offset: number
    }) => Effect.Effect<ReadonlyArray<AuditRecord>, StoreUnavailable>

    // Data keys (rule 10: master-key rotation re-wraps them, data-key rotation adds versions and re-seals)
    /** Every version of every project's data key. */
    readonly listDataKeys: Effect.Effect<ReadonlyArray<DataKeyRecord>, StoreUnavailable>
    /** The wrapped data key of this version, current or older; undefined when the project has no such version. */
    readonly findDataKey: (projectId: string, version: number) => Effect.Effect<string | undefined, StoreUnavailable>
    /** Replaces one version's wrapped data key if it is still `expected`; false otherwise. */
    readonly replaceDataKey: (input: {
      readonly projectId: string
      readonly version: number
      readonly expected: string
      readonly next: string
    }) => Effect.Effect<boolean, StoreUnavailable>
    /**
     * Makes `dataKey` the project's current data key, as version `expectedVersion + 1`, if the current version is
     * still `expectedVersion`; the previous one stays as an older version. False otherwise (or the project is gone).
     */
    readonly addDataKey: (input: {
      readonly projectId: string
      readonly expectedVersion: number
      readonly dataKey: string
    }) => Effect.Effect<boolean, StoreUnavailable>
    /**
     * A page of the project's stored versions (every environment, all history) whose sealed value does not start
     * with `except`, ordered by (secret id, version), after `after` when given.
     */
    readonly listSealedValues: (input: {
      readonly projectId: string
      readonly except: string
      readonly after: SealedRowCursor | undefined
      readonly limit: number
    }) => Effect.Effect<ReadonlyArray<SealedRow>, StoreUnavailable>
    /**
     * Marks each project's data-key rotation as under way from `fromVersion`, unless its project has a mark already
     * (that one is kept), and answers the marks of these projects as stored afterwards (projectId → fromVersion);
     * a project that no longer exists gets none.
     */
    readonly markDataKeyRotations: (
      marks: ReadonlyArray<{ readonly projectId: string; readonly fromVersion: number }>,
    ) => Effect.Effect<ReadonlyMap<string, number>, StoreUnavailable>
    /** Removes the marks of these projects' rotations, once they are done. */
    readonly endDataKeyRotations: (projectIds: ReadonlyArray<string>) => Effect.Effect<void, StoreUnavailable>
    /** Replaces each version's sealed value that is still `expected`, in one transaction; answers how many. */
    readonly replaceSealedValues: (
      replacements: ReadonlyArray<{
        readonly secretId: string
        readonly version: number
        readonly expected: string
        readonly next: string
      }>,
    ) => Effect.Effect<number, StoreUnavailable>
  }
>()("@coffer/secrets/SecretStore") {}

/** The data-key part of the port (rule 10), which each store implements in a module of its own. */
export type DataKeysPart = Pick<
  SecretStore["Service"],
  | "listDataKeys"
  | "findDataKey"
  | "replaceDataKey"
  | "addDataKey"
  | "markDataKeyRotations"
  | "endDataKeyRotations"
  | "listSealedValues"
  | "replaceSealedValues"
>
