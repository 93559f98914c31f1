/**
 * Platforms (issue 13 §2): every platform with its kind (icon and description; records without one read as
 * Custom), its number of versions and latest version, and a lock on those the person may not change; a search
 * by name or kind; creating a platform (name and kind; a taken name explained). Rows are memoised, so typing in
 * the search re-renders only the rows that appear or go.
 */
import { useMemo, useState } from "preact/hooks"
import { ApiError } from "../../api/client.js"
import { createPlatform, type DashboardPlatform, type Kind, listPlatforms } from "../../api/schemas.js"
import { ActionButton, Alert, Field, LoadFailed, Loading, Select } from "../../ui/components.js"
import { useFieldRefusal } from "../../ui/fieldRefusal.js"
import { memo } from "../../ui/memo.js"
import { Link, navigate } from "../../ui/router.js"
import { Table } from "../../ui/table.js"
import { toast } from "../../ui/toast.js"
import { useAction } from "../../ui/useAction.js"
import { useAsync } from "../../ui/useAsync.js"
import { KIND_LABELS, KindBadge, KindOptions, LockIcon } from "../kinds.js"
import { platformPath } from "../paths.js"
import { platformNameError } from "../platformName.js"
import { useAbilities } from "../session.js"
import { latestVersion } from "../versions.js"

const CreatePlatform = ({ existing }: { readonly existing: ReadonlyArray<DashboardPlatform> | undefined }) => {
  const [name, setName] = useState("")
  const [kind, setKind] = useState<Kind>("custom")
  const problem = name === "" ? undefined : platformNameError(name)
  // Known from the list already shown: said under the field, and not sent to be refused (the 409 below is for a
  // platform created elsewhere since the list was loaded).
  const exists = existing?.some((platform) => platform.name === name) === true
  // A name the service said is taken (created elsewhere since the list was loaded).
  const taken = useFieldRefusal()
  const create = useAction(async () => {
    try {
      await createPlatform(name, kind)
      toast(`Created platform ${name}`)
      navigate(platformPath(name))
    } catch (cause) {
      if (!(cause instanceof ApiError && cause.status === 409)) throw cause
      throw taken.refuse(
        cause,
        `A platform named “${name}” already exists. Platform names are unique; open it from the list or choose another name.`,
      )
    }
  })
  return (
    <form class="card stack" aria-label="Create a platform" onSubmit={create.submit}>
      <h2>New platform</h2>
      <div class="row top">
        <Field
          label="Platform name"
          name="name"
          required
          autoComplete="off"
          value={name}
          aria-invalid={problem !== undefined || exists || taken.shown(create.error)}
          errorId={taken.errorId(create.error)}
          onInput={(event) => {
            setName(event.currentTarget.value)
            create.setError(undefined)
          }}
          hint={
            problem ??
            (exists
              ? `A platform named “${name}” already exists: open it from the list, or choose another name.`
              : "Used in addresses and @extends references: letters, digits, '.', '_' and '-'.")
          }
        />
        <Select label="Kind" name="kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as Kind)}>
          <KindOptions />
        </Select>
      </div>
      <Alert error={create.error} id={taken.alertId} />
      <div>
        <ActionButton
          class="button primary"
          type="submit"
          busy={create.busy}
          blocked={name === "" || problem !== undefined || exists}
        >
          Create platform
        </ActionButton>
      </div>
    </form>
  )
}

const PlatformRow = memo(
  ({ platform, locked }: { readonly platform: DashboardPlatform; readonly locked: string | undefined }) => {
    // What `<platform>/latest` selects, which passes over a higher pre-release.
    const latest = latestVersion(platform.versions)
    return (
      <tr>
        <th scope="row">
          <Link href={platformPath(platform.name)}>{platform.name}</Link>
          {locked === undefined ? null : (
            <span class="lock" title={locked}>
              <LockIcon /> Locked<span class="visually-hidden">: {locked}</span>
            </span>
          )}
        </th>
        <td>
          <KindBadge kind={platform.kind} />
        </td>
        <td class="numeric">{platform.versions.length}</td>
        <td>{latest === undefined ? <span class="muted">none</span> : <code>{latest}</code>}</td>
      </tr>
    )
  },
)

export const Platforms = () => {
  const abilities = useAbilities()
  const platforms = useAsync(listPlatforms, [])
  const [query, setQuery] = useState("")
  const list = platforms.data
  const sorted = useMemo(
    () => (list === undefined ? [] : [...list].sort((a, b) => a.name.localeCompare(b.name))),
    [list],
  )
  const needle = query.trim().toLowerCase()
  const shown =
    needle === ""
      ? sorted
      : sorted.filter(
          (platform) =>
            platform.name.toLowerCase().includes(needle) || KIND_LABELS[platform.kind].toLowerCase().includes(needle),
        )
  return (
    <section class="stack">
      <h1>Platforms</h1>
      {abilities.write ? null : (
        <p class="notice" role="note">
          You can view platforms and schemas, but not change them: your groups give no editor rights.
        </p>
      )}
      <Alert error={list === undefined ? undefined : platforms.error} />
      {list === undefined ? (
        platforms.loading ? (
          <Loading what="platforms" />
        ) : (
          <LoadFailed error={platforms.error} retry={platforms.reload} />
        )
      ) : list.length === 0 ? (
        <p class="muted">There are no platforms yet.{abilities.write ? " Create the first one below." : ""}</p>
      ) : (
        <>
          <div class="toolbar">
            <Field
              label="Search platforms"
              type="search"
              name="search"
              autoComplete="off"
              value={query}
              onInput={(event) => setQuery(event.currentTarget.value)}
            />
            <p class="muted" aria-live="polite">
              {shown.length === list.length
                ? `${list.length} ${list.length === 1 ? "platform" : "platforms"}`
                : `${shown.length} of ${list.length} platforms`}
            </p>
          </div>
          {shown.length === 0 ? (
            <p class="muted">No platform’s name contains “{query.trim()}”.</p>
          ) : (
            <Table caption="Platforms" columns={["Name", "Kind", { label: "Versions", class: "numeric" }, "Latest"]}>
              {shown.map((platform) => (
                <PlatformRow
                  key={platform.name}
                  platform={platform}
                  locked={abilities.write ? abilities.lockedReason(platform.name) : undefined}
                />
              ))}
            </Table>
          )}
        </>
      )}
      {/* Once the list above it is in (or refused): drawn under "Loading platforms…", the form jumped down by the
          whole list as it came, from under the pointer and the typing; and it tells a taken name from the list.
          A refusal keeps it through Try again, rather than taking it away while the list is asked for again. */}
      {abilities.write && (list !== undefined || platforms.error !== undefined) ? (
        <CreatePlatform existing={list} />
      ) : null}
    </section>
  )
}
