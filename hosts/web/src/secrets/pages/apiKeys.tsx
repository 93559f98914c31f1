/**
 * API keys (issue 12 §9, seed 001 §4 "API keys"): the person's own keys and every key of projects they own,
 * filtered by project (kept in the address as `?project=<slug>`); create one with a scope and an optional
 * expiry, rotate one's own key, delete a key. A new or rotated key is shown once, with a copy button: only its
 * SHA-256 is stored.
 */
import { useState } from "preact/hooks"
import { ApiError } from "../../api/client.js"
import {
  type ApiKeyView,
  createApiKey,
  deleteApiKey,
  type IssuedApiKey,
  listApiKeys,
  listProjects,
  type ProjectView,
  rotateApiKey,
} from "../../api/secrets.js"
import {
  ActionButton,
  Alert,
  EmailAddress,
  Field,
  formatTime,
  LoadFailed,
  Loading,
  Select,
} from "../../ui/components.js"
import { ConfirmDialog } from "../../ui/confirmDialog.js"
import { Link, navigate, useLocation } from "../../ui/router.js"
import { ShownOnce } from "../../ui/shownOnce.js"
import { RowAction, Table } from "../../ui/table.js"
import { toast } from "../../ui/toast.js"
import { useAction } from "../../ui/useAction.js"
import { useAsync } from "../../ui/useAsync.js"
import { daysOf, ExpiryField, MAX_DAYS, useKeyGrant } from "../keyGrant.js"
import { useSession } from "../session.js"
import { auditPath } from "./auditFilters.js"

const expired = (key: ApiKeyView) => key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now()

/** A week, as the command line warns a key's user (`hosts/cli/src/keyExpiry.ts`): time to rotate it still. */
const SOON_MS = 7 * 86_400_000
const expiresSoon = (key: ApiKeyView) =>
  key.expiresAt !== null && !expired(key) && Date.parse(key.expiresAt) - Date.now() <= SOON_MS

/** "expired", or "expires soon" in a key's last week, apart from the date it follows. */
const ExpiryMark = ({ apiKey }: { readonly apiKey: ApiKeyView }) => {
  const [tone, text] = expired(apiKey) ? ["missing", "expired"] : expiresSoon(apiKey) ? ["soon", "expires soon"] : []
  return text === undefined ? null : (
    <>
      {" "}
      <span class={`badge ${tone}`}>{text}</span>
    </>
  )
}

/**
 * A key as its row's actions name it: its name and the start of its value, since names need not be unique (two
 * people's "laptop" keys in a project the owner sees), and "Delete laptop" twice did not say which was which.
 */
const keyLabel = (key: ApiKeyView) => `${key.name} (starts with ${key.keyPrefix})`

/** A link to what a key has done: the project's audit log, narrowed to the key. */
const KeyActivity = ({ apiKey, slug }: { readonly apiKey: ApiKeyView; readonly slug: string | undefined }) =>
  slug === undefined ? null : (
    <Link href={auditPath(slug, { apiKey: apiKey.id })} aria-label={`Activity of ${keyLabel(apiKey)}`}>
      Activity
    </Link>
  )

const CreateKey = ({
  projects,
  chosen,
  onCreated,
}: {
  readonly projects: ReadonlyArray<ProjectView>
  readonly chosen: string | undefined
  readonly onCreated: (issued: IssuedApiKey) => Promise<void>
}) => {
  const [name, setName] = useState("")
  const { project, grant, fields, reset } = useKeyGrant(projects, chosen)
  const create = useAction(async () => {
    const issued = await createApiKey({ name, ...grant })
    setName("")
    reset()
    await onCreated(issued)
  })
  return (
    <form class="card stack" aria-label="Create an API key" onSubmit={create.submit}>
      <h2>New API key</h2>
      <p class="hint">A key acts as you within one project, never beyond your own rights there.</p>
      <Field
        label="Key name"
        required
        maxLength={100}
        autoComplete="off"
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      {fields}
      <Alert error={create.error} />
      <div>
        <ActionButton type="submit" class="button primary" busy={create.busy} blocked={project === undefined}>
          Create API key
        </ActionButton>
      </div>
    </form>
  )
}

const RotateKey = ({
  apiKey,
  onClose,
  onRotated,
  onStale,
}: {
  readonly apiKey: ApiKeyView
  readonly onClose: () => void
  readonly onRotated: (issued: IssuedApiKey) => Promise<void>
  /** Brings the list up to date: the key was rotated or deleted elsewhere since the page was drawn. */
  readonly onStale: () => Promise<void>
}) => {
  const [days, setDays] = useState("")
  return (
    <ConfirmDialog
      title={`Rotate ${apiKey.name}?`}
      action="Rotate key"
      tone="primary"
      onClose={onClose}
      run={async () => {
        let issued: IssuedApiKey
        try {
          issued = await rotateApiKey(apiKey.id, daysOf(days))
        } catch (cause) {
          // Rotated by another request at the same moment: the refusal stays, beside the list's new prefix.
          if (cause instanceof ApiError && cause.status === 409) await onStale()
          throw cause
        }
        await onRotated(issued)
      }}
      // Deleted elsewhere: there is nothing left to rotate, so the dialog has nothing more to offer.
      gone={{
        said: `${apiKey.name} was deleted elsewhere: there is nothing to rotate`,
        after: async () => {
          onClose()
          await onStale()
        },
      }}
    >
      <p>The key gets a new value, shown once; the old value stops working at once.</p>
      {/* An expired key keeps nothing worth keeping: the service refuses to rotate it into the same past expiry. */}
      <ExpiryField
        value={days}
        onInput={setDays}
        required={expired(apiKey)}
        hint={
          expired(apiKey)
            ? `It expired ${formatTime(apiKey.expiresAt)}: give it a new lifetime, 1 to ${MAX_DAYS} days from now.`
            : `Leave empty to keep its expiry (${apiKey.expiresAt === null ? "never" : formatTime(apiKey.expiresAt)}); a number counts from now.`
        }
      />
    </ConfirmDialog>
  )
}

const DeleteKey = ({
  apiKey,
  onClose,
  onDeleted,
}: {
  readonly apiKey: ApiKeyView
  readonly onClose: () => void
  readonly onDeleted: () => Promise<void>
}) => (
  <ConfirmDialog
    title={`Delete ${apiKey.name}?`}
    action="Delete key"
    onClose={onClose}
    run={async () => {
      await deleteApiKey(apiKey.id)
      await onDeleted()
      toast(`Deleted ${apiKey.name}`)
    }}
    gone={{ said: `${apiKey.name} was already deleted`, after: onDeleted }}
  >
    <p>Scripts using this key stop working at once. It cannot be undone.</p>
  </ConfirmDialog>
)

export const ApiKeys = () => {
  const { current: user } = useSession()
  const { search } = useLocation()
  const chosen = search.get("project") ?? undefined
  const projects = useAsync(listProjects, [])
  const keys = useAsync(() => listApiKeys(chosen), [chosen])
  const [issued, setIssued] = useState<IssuedApiKey>()
  const [rotating, setRotating] = useState<ApiKeyView>()
  const [deleting, setDeleting] = useState<ApiKeyView>()
  const projectList = projects.data?.projects ?? []
  const projectName = (id: string) => projectList.find((project) => project.id === id)?.name ?? id
  // Every key listed is in a project of the person's (their own, or one they own), whose log every member reads;
  // until the projects have loaded its slug is not known, and the link waits.
  const projectSlug = (id: string) => projectList.find((project) => project.id === id)?.slug
  const list = keys.data?.apiKeys
  // The address names a project the person is not in: said in words of its own, not as a failure to load.
  const notInProject = chosen !== undefined && keys.error instanceof ApiError && keys.error.status === 404
  // The list's failure offers to load both again, so the projects' own failure (most likely the same) is not said
  // twice; nor is it said while the projects load again (the keys may come back first).
  const listFailed = list === undefined && !keys.loading && !notInProject
  const projectsFailed = listFailed || projects.loading ? undefined : projects.error
  const show = async (key: IssuedApiKey) => {
    setIssued(key)
    await keys.reload()
  }
  return (
    <section class="stack">
      <h1>API keys</h1>
      <p class="hint">Your own keys, and every key of the projects you own.</p>
      <Alert error={projectsFailed} />
      <div class="toolbar">
        <Select
          label="Project"
          value={chosen ?? ""}
          onChange={(event) => {
            const slug = event.currentTarget.value
            navigate(slug === "" ? "/api-keys" : `/api-keys?project=${encodeURIComponent(slug)}`, { replace: true })
          }}
        >
          <option value="">All projects</option>
          {/* A project named by the address that is not in the list (left, deleted): shown as chosen, not blank. */}
          {chosen !== undefined &&
          projects.data !== undefined &&
          !projectList.some((project) => project.slug === chosen) ? (
            <option value={chosen}>{chosen}</option>
          ) : null}
          {projectList.map((project) => (
            <option key={project.slug} value={project.slug}>
              {project.name}
            </option>
          ))}
        </Select>
      </div>
      {issued === undefined ? null : (
        <ShownOnce
          title={`API key ${issued.name} created`}
          label={`API key ${issued.name}`}
          value={issued.key}
          onDone={() => setIssued(undefined)}
          note={
            // Where it goes next, with this service's own address: a key is of no use until a tool holds it.
            <>
              On your machine: <code>coffer login --url {location.origin}</code>, then paste it. In CI: set it as{" "}
              <code>COFFER_TOKEN</code>, with <code>COFFER_URL={location.origin}</code>.
            </>
          }
        />
      )}
      <Alert error={list === undefined ? undefined : keys.error} />
      {list === undefined ? (
        keys.loading ? (
          <Loading what="API keys" />
        ) : notInProject ? (
          // A link kept from before (the person left the project, or it was deleted): trying again cannot help.
          <p class="notice">
            You are in no project “{chosen}”: it was deleted, or you are no longer a member.{" "}
            <Link href="/api-keys">Show the keys of every project</Link>
          </p>
        ) : (
          // The projects (their names in the list, the form's choices) most likely failed with the keys: both load
          // again.
          <LoadFailed
            error={keys.error}
            retry={async () => {
              await Promise.all([keys.reload(), projects.reload()])
            }}
          />
        )
      ) : list.length === 0 ? (
        <p class="muted">No API keys{chosen === undefined ? "" : " in this project"}.</p>
      ) : (
        <Table
          caption="API keys"
          columns={["Name", "Project", "Scope", "Holder", "Starts with", "Last used", "Expires"]}
          actions
          stacked
        >
          {list.map((key) => (
            <tr key={key.id}>
              {/* Only the names, which may be 100 characters long, wrap: beside one, the other columns were left a
                  few letters wide (`audit.tsx` says why). */}
              <th scope="row" class="wraps">
                {key.name}
              </th>
              <td data-label="Project" class="wraps">
                {projectName(key.projectId)}
              </td>
              <td data-label="Scope" class="nowrap">
                {key.scope}
              </td>
              <td data-label="Holder">
                {key.userId === user?.id ? "you" : <EmailAddress address={key.userEmail ?? key.userId} />}
              </td>
              <td data-label="Starts with" class="nowrap">
                <code>{key.keyPrefix}…</code>
              </td>
              <td data-label="Last used" class="nowrap">
                {formatTime(key.lastUsedAt)}
              </td>
              <td data-label="Expires" class="nowrap">
                {key.expiresAt === null ? "never" : formatTime(key.expiresAt)}
                <ExpiryMark apiKey={key} />
              </td>
              <td class="right">
                <div class="row key-actions">
                  <KeyActivity apiKey={key} slug={projectSlug(key.projectId)} />
                  {key.userId === user?.id ? (
                    <button
                      type="button"
                      class="button small"
                      aria-label={`Rotate ${keyLabel(key)}`}
                      onClick={() => setRotating(key)}
                    >
                      Rotate
                    </button>
                  ) : null}
                  <RowAction label={`Delete ${keyLabel(key)}`} onClick={() => setDeleting(key)}>
                    Delete
                  </RowAction>
                </div>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {/* Once the list above it is in (or refused): drawn under "Loading API keys…", the form jumped down by the
          whole list as it came, from under the pointer and a name being typed. A refusal keeps it through Try again,
          rather than taking it away, and what was typed in it, while the list is asked for again. */}
      {projects.data === undefined || (list === undefined && keys.error === undefined) ? null : projectList.length ===
        0 ? (
        <p class="muted">A key belongs to a project: create or join a project first.</p>
      ) : (
        <CreateKey key={chosen} projects={projectList} chosen={chosen} onCreated={show} />
      )}
      {rotating === undefined ? null : (
        <RotateKey
          apiKey={rotating}
          onClose={() => setRotating(undefined)}
          onRotated={async (key) => {
            setRotating(undefined)
            await show(key)
            toast(`Rotated ${key.name}: the old value no longer works`)
          }}
          onStale={keys.reload}
        />
      )}
      {deleting === undefined ? null : (
        <DeleteKey
          apiKey={deleting}
          onClose={() => setDeleting(undefined)}
          onDeleted={async () => {
            setDeleting(undefined)
            // Only the deleted key's own value goes: a key just issued and not yet copied cannot be shown again.
            if (issued?.key.startsWith(deleting.keyPrefix) === true) setIssued(undefined)
            await keys.reload()
          }}
        />
      )}
    </section>
  )
}
