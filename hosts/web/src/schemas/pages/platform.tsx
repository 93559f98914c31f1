/**
 * A platform (issue 13 §3): its kind (changeable), its versions in semantic-version order, newest first, with
 * pre-release and build metadata marked as such; adding a version with the rules of seed 000 §2 checked as the
 * person types, in the API's own words (`versions.ts`); deleting a version after a confirmation, the platform
 * (every version goes with it) after its name is typed, as the Secrets app asks for an environment or a project; a
 * refusal because other schemas extend it listing those schemas as links. Write controls appear only for
 * people who may change this platform, deletes only for admins.
 *
 * Each version's row says what its schema is without opening it: saved or not, what it extends, its latest
 * revision and last save. They come with the platform in one read (`GET /api/_ui/v1/platforms/{platform}`),
 * summaries only, so a platform of many versions costs one request and no contents.
 */
import { useMemo, useState } from "preact/hooks"
import { ApiError } from "../../api/client.js"
import {
  addVersion,
  changeKind,
  type DashboardPlatform,
  deletePlatform,
  deleteVersion,
  type Kind,
  readPlatform,
  readSchema,
  type VersionSummary,
} from "../../api/schemas.js"
import { ActionButton, Alert, Field, formatTime, LoadFailed, Loading, Select } from "../../ui/components.js"
import { ConfirmDialog } from "../../ui/confirmDialog.js"
import { useFieldRefusal } from "../../ui/fieldRefusal.js"
import { memo } from "../../ui/memo.js"
import { Link, navigate } from "../../ui/router.js"
import { RowAction, Table } from "../../ui/table.js"
import { toast } from "../../ui/toast.js"
import { useAction } from "../../ui/useAction.js"
import { useAsync } from "../../ui/useAsync.js"
import { DeletionRefusal } from "../blocked.js"
import { KindBadge, KindOptions } from "../kinds.js"
import { LockedNotice } from "../lock.js"
import { platformsPath, schemaIdPath, schemaPath } from "../paths.js"
import { exactReference } from "../references.js"
import { useAbilities } from "../session.js"
import { latestVersion, sortVersions, versionError, versionParts } from "../versions.js"

const VersionLabel = ({ version, latest }: { readonly version: string; readonly latest: boolean }) => {
  const parts = versionParts(version)
  // A space before each badge, so that a link's accessible name reads "1.1.0 latest", not "1.1.0latest".
  return (
    <>
      <code>{version}</code>
      {latest ? " " : null}
      {latest ? (
        <span class="badge latest" title="What `latest` selects, and an @extends reference naming the platform alone">
          latest
        </span>
      ) : null}
      {parts.prerelease === undefined ? null : " "}
      {parts.prerelease === undefined ? null : (
        <span class="badge prerelease" title="A pre-release sorts below its release">
          pre-release {parts.prerelease}
        </span>
      )}
      {parts.build === undefined ? null : " "}
      {parts.build === undefined ? null : (
        <span class="badge build" title="Build metadata">
          build {parts.build}
        </span>
      )}
    </>
  )
}

/** The `@extends` references as written: an exact version links to its page; `latest` and ranges move, so stay text. */
const Extends = ({ dependencies }: { readonly dependencies: ReadonlyArray<string> }) =>
  dependencies.length === 0 ? (
    <span class="muted">Nothing</span>
  ) : (
    <ul class="references">
      {dependencies.map((reference, index) => {
        const exact = exactReference(reference)
        return (
          // A reference may be written twice; its position keeps the keys apart.
          <li key={index}>
            {exact === undefined ? (
              <code title="Whichever version this selects as the platform changes">{reference}</code>
            ) : (
              <Link href={schemaPath(exact.platform, exact.version)}>
                <code>{reference}</code>
              </Link>
            )}
          </li>
        )
      })}
    </ul>
  )

const VersionRow = memo(
  ({
    platform,
    summary,
    latest,
    onDelete,
  }: {
    readonly platform: string
    readonly summary: VersionSummary
    readonly latest: boolean
    readonly onDelete: ((version: string) => void) | undefined
  }) => {
    const { version } = summary
    return (
      <tr>
        <th scope="row">
          {/* Named by its own text, the words of context hidden from sight: an aria-label left the pre-release and
            build badges the link shows out of its name, and WCAG 2.5.3 (label in name) wants what is seen in it. */}
          <Link href={schemaPath(platform, version)} class="version-link">
            <span class="visually-hidden">Schema of {platform} </span>
            <VersionLabel version={version} latest={latest} />
          </Link>
        </th>
        {summary.saved ? (
          <>
            <td data-label="Schema" class="nowrap">
              Revision {summary.revision}
            </td>
            <td data-label="Extends">
              <Extends dependencies={summary.dependencies ?? []} />
            </td>
            <td data-label="Last saved">
              <time class="nowrap" dateTime={summary.savedAt}>
                {formatTime(summary.savedAt)}
              </time>
              <span class="saved-by">by {summary.savedBy}</span>
            </td>
          </>
        ) : (
          <>
            <td data-label="Schema" class="nowrap muted">
              No schema yet
            </td>
            {/* Nothing to say: on a phone these go rather than stand as labels with nothing after them. */}
            <td class="hide-narrow" />
            <td class="hide-narrow" />
          </>
        )}
        <td class="right">
          {onDelete === undefined ? null : (
            <RowAction label={`Delete version ${version}`} onClick={() => onDelete(version)}>
              Delete
            </RowAction>
          )}
        </td>
      </tr>
    )
  },
)

/** What the last addition did: the version, how its schema began, and the schemas that moved onto it. */
interface Added {
  readonly version: string
  readonly start: Start
  readonly reprocessed: ReadonlyArray<string>
}

/** How a new version's schema begins: none yet, a copy of a saved version's content, or extending one. */
type Start = { readonly kind: "none" } | { readonly kind: "copy" | "extends"; readonly from: string }

const startLabel = (start: Start) =>
  start.kind === "none"
    ? "no schema yet"
    : start.kind === "copy"
      ? `a copy of ${start.from}'s schema`
      : `a schema extending ${start.from}`

/**
 * Adds a version, with its schema from the start when the person picks one (one request: the version and its
 * schema are saved together, `POST /api/{platform}/versions` with `content`): a copy of a saved version's
 * content, the usual start of a new release, or a schema that extends one. Without a schema the new version
 * merges in as `{}` wherever a `latest` or range reference selects it: before adding, the form says when that can
 * happen (the version would be the platform's latest release); after, it names the schemas that moved onto it,
 * since their outputs lost what they inherited until its schema is saved.
 */
const AddVersion = ({
  platform,
  versions,
  saved,
  onAdded,
}: {
  readonly platform: string
  readonly versions: ReadonlyArray<string>
  /** The versions with a saved schema, newest first: what a new one may start from. */
  readonly saved: ReadonlyArray<string>
  readonly onAdded: () => Promise<void>
}) => {
  const [version, setVersion] = useState("")
  const [startKind, setStartKind] = useState<Start["kind"]>(saved.length > 0 ? "copy" : "none")
  // What the person picked; until then (and again after each add) the newest saved version, whichever it is now.
  const [from, setFrom] = useState<string>()
  const [added, setAdded] = useState<Added>()
  // A version deleted since it was picked is no longer offered: the newest is.
  const source = from !== undefined && saved.includes(from) ? from : saved[0]
  const start: Start =
    startKind === "none" || source === undefined ? { kind: "none" } : { kind: startKind, from: source }
  const exists = versions.includes(version)
  const problem =
    version === "" ? undefined : (versionError(version) ?? (exists ? `${version} exists already` : undefined))
  const becomesLatest = problem === undefined && version !== "" && latestVersion([...versions, version]) === version
  // A version the service said exists (added elsewhere since the list was loaded).
  const taken = useFieldRefusal()
  const add = useAction(async () => {
    const content =
      start.kind === "none"
        ? undefined
        : start.kind === "copy"
          ? (await readSchema(platform, start.from)).content
          : { "@extends": `${platform}/${start.from}` }
    const { reprocessed } = await addVersion(platform, version, content).catch((cause: unknown) => {
      if (!(cause instanceof ApiError && cause.status === 409)) throw cause
      throw taken.refuse(
        cause,
        `Version ${version} of ${platform} exists already: it was added since this page was loaded. Choose another version.`,
      )
    })
    // The list first, then the word: the toast never stands beside a list that lacks the version.
    await onAdded()
    toast(`Added version ${version} with ${startLabel(start)}`)
    setAdded({ version, start, reprocessed })
    setVersion("")
    setFrom(undefined)
  })
  return (
    <form class="card stack" aria-label="Add a version" onSubmit={add.submit}>
      <h2>Add a version</h2>
      <Field
        label="Version"
        name="version"
        autoComplete="off"
        spellcheck={false}
        placeholder="1.4.0, 2.0.0-rc.1 or 2.0.0+build.7"
        value={version}
        aria-invalid={problem !== undefined || taken.shown(add.error)}
        errorId={taken.errorId(add.error)}
        onInput={(event) => {
          setVersion(event.currentTarget.value)
          add.setError(undefined)
        }}
        hint={
          problem ?? "A semantic version: MAJOR.MINOR.PATCH, optionally -prerelease and +build; at most 128 characters."
        }
      />
      {saved.length === 0 ? null : (
        <div class="row">
          <Select
            label="Its schema"
            name="start"
            value={start.kind}
            onChange={(event) => setStartKind(event.currentTarget.value as Start["kind"])}
          >
            <option value="copy">A copy of</option>
            <option value="extends">Extending</option>
            <option value="none">None yet</option>
          </Select>
          {start.kind === "none" ? null : (
            <Select
              label={start.kind === "copy" ? "Copy of version" : "Extended version"}
              name="from"
              value={start.from}
              onChange={(event) => setFrom(event.currentTarget.value)}
            >
              {saved.map((candidate) => (
                <option key={candidate}>{candidate}</option>
              ))}
            </Select>
          )}
        </div>
      )}
      {becomesLatest && start.kind === "none" ? (
        <p class="notice" role="status">
          {version} will be the latest release of {platform}. Schemas that extend {platform} by <code>latest</code> or
          by a range that includes it will inherit from {version}, which has no schema until you save one: until then
          they inherit nothing from {platform}.
        </p>
      ) : null}
      {added === undefined ? null : added.start.kind !== "none" ? (
        <p class="notice" role="status">
          {added.version} starts with {startLabel(added.start)}
          {added.reprocessed.length === 0
            ? ""
            : `, and ${added.reprocessed.length === 1 ? "1 schema inherits" : `${added.reprocessed.length} schemas inherit`} from it now`}
          . <Link href={schemaPath(platform, added.version)}>Edit its schema</Link>
        </p>
      ) : added.reprocessed.length === 0 ? null : (
        <div class="notice" role="status">
          <p>
            {added.reprocessed.length === 1 ? "This schema now inherits" : "These schemas now inherit"} from {platform}{" "}
            {added.version}, which has no schema yet:{" "}
            <Link href={schemaPath(platform, added.version)}>save its schema</Link> to give them back what they inherit.
          </p>
          <ul>
            {added.reprocessed.map((id) => (
              <li key={id}>
                <Link href={schemaIdPath(id, "output")}>{id}</Link>
              </li>
            ))}
          </ul>
        </div>
      )}
      <Alert error={add.error} id={taken.alertId} />
      <div>
        <ActionButton
          class="button primary"
          type="submit"
          busy={add.busy}
          blocked={version === "" || problem !== undefined}
        >
          Add version
        </ActionButton>
      </div>
    </form>
  )
}

const ChangeKind = ({
  platform,
  onChanged,
}: {
  readonly platform: DashboardPlatform
  readonly onChanged: () => Promise<void>
}) => {
  const [kind, setKind] = useState<Kind>(platform.kind)
  const change = useAction(async () => {
    await changeKind(platform.name, kind)
    await onChanged()
    toast(`${platform.name} is now of kind ${kind}`)
  })
  return (
    <form class="row end" aria-label="Change the kind" onSubmit={change.submit}>
      <Select label="Kind" name="kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as Kind)}>
        <KindOptions />
      </Select>
      <ActionButton class="button" type="submit" busy={change.busy} blocked={kind === platform.kind}>
        Change kind
      </ActionButton>
      <Alert error={change.error} />
    </form>
  )
}

export const Platform = ({ params }: { readonly params: Readonly<Record<string, string>> }) => {
  const name = params.platform!
  const abilities = useAbilities()
  const loaded = useAsync(() => readPlatform(name), [name])
  const [deleting, setDeleting] = useState<{ readonly version?: string } | undefined>()
  const platform = loaded.data
  // The answer lists versions oldest first; the table shows them newest first.
  const summaries = useMemo(() => {
    if (platform === undefined) return []
    const byVersion = new Map(platform.schemas.map((summary) => [summary.version, summary]))
    return sortVersions(platform.versions)
      .reverse()
      .map((version) => byVersion.get(version) ?? { version, saved: false })
  }, [platform])
  const latest = useMemo(() => (platform === undefined ? undefined : latestVersion(platform.versions)), [platform])
  const locked = abilities.lockedReason(name)
  const canDelete = abilities.manage && locked === undefined
  const onDelete = useMemo(() => (canDelete ? (version: string) => setDeleting({ version }) : undefined), [canDelete])
  if (platform === undefined) {
    if (loaded.error instanceof ApiError && loaded.error.status === 404) {
      return (
        <section class="stack">
          <h1>Platform not found</h1>
          <p>
            There is no platform “{name}”. <Link href={platformsPath}>All platforms</Link>
          </p>
        </section>
      )
    }
    return loaded.error === undefined ? (
      <Loading what="the platform" />
    ) : (
      <LoadFailed error={loaded.error} retry={loaded.reload} />
    )
  }
  return (
    <section class="stack">
      <nav aria-label="Breadcrumb" class="crumbs">
        <Link href={platformsPath}>Platforms</Link> / <span aria-current="page">{platform.name}</span>
      </nav>
      <div class="head">
        <h1>{platform.name}</h1>
        <KindBadge kind={platform.kind} />
      </div>
      <LockedNotice reason={locked} />
      <Alert error={loaded.error} />
      {locked === undefined ? <ChangeKind platform={platform} onChanged={loaded.reload} /> : null}
      <h2>Versions</h2>
      {summaries.length === 0 ? (
        <p class="muted">No versions yet.</p>
      ) : (
        <Table
          caption={`Versions of ${platform.name}, newest first, with their schemas`}
          columns={["Version (newest first)", "Schema", "Extends", "Last saved"]}
          actions
          stacked
        >
          {summaries.map((summary) => (
            <VersionRow
              key={summary.version}
              platform={platform.name}
              summary={summary}
              latest={summary.version === latest}
              onDelete={onDelete}
            />
          ))}
        </Table>
      )}
      {locked === undefined ? (
        <AddVersion
          platform={platform.name}
          versions={platform.versions}
          saved={summaries.filter((summary) => summary.saved).map((summary) => summary.version)}
          onAdded={loaded.reload}
        />
      ) : null}
      {canDelete ? (
        <div class="card stack danger-zone">
          <h2>Delete this platform</h2>
          <p class="hint">Deletes every version, its schema and its history. Refused while other schemas extend it.</p>
          <div>
            <button
              type="button"
              class="button danger"
              aria-label={`Delete platform ${platform.name}`}
              onClick={() => setDeleting({})}
            >
              Delete platform
            </button>
          </div>
        </div>
      ) : null}
      {deleting === undefined ? null : deleting.version === undefined ? (
        <ConfirmDialog
          title={`Delete platform ${platform.name}?`}
          action="Delete platform"
          typed={platform.name}
          refusal={DeletionRefusal}
          onClose={() => setDeleting(undefined)}
          run={async () => {
            await deletePlatform(platform.name)
            toast(`Deleted platform ${platform.name}`)
            navigate(platformsPath)
          }}
          gone={{ said: `Platform ${platform.name} was already deleted`, after: () => navigate(platformsPath) }}
        >
          <p>
            This deletes {platform.name},{" "}
            {platform.versions.length === 0
              ? "which has no versions"
              : platform.versions.length === 1
                ? "its one version, its schema and history"
                : `its ${platform.versions.length} versions, their schemas and history`}
            . It cannot be undone.
          </p>
        </ConfirmDialog>
      ) : (
        <ConfirmDialog
          title={`Delete version ${deleting.version}?`}
          action="Delete version"
          refusal={DeletionRefusal}
          onClose={() => setDeleting(undefined)}
          run={async () => {
            await deleteVersion(platform.name, deleting.version!)
            await loaded.reload()
            setDeleting(undefined)
            toast(`Deleted version ${deleting.version}`)
          }}
          gone={{
            said: `Version ${deleting.version} was already deleted`,
            after: async () => {
              await loaded.reload()
              setDeleting(undefined)
            },
          }}
        >
          <p>
            This deletes version {deleting.version} of {platform.name}, its schema and its history. It cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </section>
  )
}
