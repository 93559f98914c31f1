/**
 * Environments (issue 12 §7): each with its `.env` and JSON downloads (audited exports), add one, delete one
 * (its secrets go with it, so the name must be typed).
 */
import { useState } from "preact/hooks"
import { ApiError, describeError, getFile } from "../../api/client.js"
import {
  createEnvironment,
  deleteEnvironment,
  type EnvironmentView,
  exportUrl,
  exportValues,
} from "../../api/secrets.js"
import { CommandList } from "../../ui/commands.js"
import { ActionButton, Alert, Field, formatTime, Select } from "../../ui/components.js"
import { ConfirmDialog } from "../../ui/confirmDialog.js"
import { useFieldRefusal } from "../../ui/fieldRefusal.js"
import { isPlainClick, Link, type Params } from "../../ui/router.js"
import { saveFile } from "../../ui/saveFile.js"
import { RowAction, Table } from "../../ui/table.js"
import { toast } from "../../ui/toast.js"
import { useAction } from "../../ui/useAction.js"
import { type CopyOutcome, copySecrets } from "../copyAcross.js"
import { ENVIRONMENT_NAME_MAX_LENGTH, nameProblem } from "../names.js"
import { NotCopied } from "../notCopied.js"
import { type ProjectData, ProjectFrame } from "../projectFrame.js"

const DeleteEnvironment = ({
  data,
  environment,
  onClose,
}: {
  readonly data: ProjectData
  readonly environment: EnvironmentView
  readonly onClose: () => void
}) => (
  <ConfirmDialog
    title={`Delete ${environment.name}?`}
    action="Delete environment"
    typed={environment.name}
    onClose={onClose}
    run={async () => {
      await deleteEnvironment(data.project.slug, environment.name)
      // The list is fresh before the toast says it is done, so nothing deleted is still shown beside it.
      await data.reload()
      onClose()
      toast(`Deleted ${environment.name}`)
    }}
    gone={{
      said: `${environment.name} was already deleted`,
      after: async () => {
        await data.reload()
        onClose()
      },
    }}
  >
    <p>Every secret of {environment.name}, with its history, is deleted. It cannot be undone.</p>
  </ConfirmDialog>
)

/**
 * Adds an environment, empty or with a copy of another's secrets: the source read as one export (audited as one, as
 * `coffer environments create --copy-from` reads it) and each key created in the new one (`../copyAcross.ts`). One
 * that cannot be copied is listed with its reason; the environment and the rest stay.
 */
const AddEnvironment = ({ data }: { readonly data: ProjectData }) => {
  const [name, setName] = useState("")
  const [source, setSource] = useState("")
  const [failed, setFailed] = useState<CopyOutcome["failed"]>([])
  const problem = name === "" ? undefined : nameProblem("environmentName", name)
  // Known from the list already shown: said under the field, not sent to be refused (the 409 is for one added
  // elsewhere since).
  const exists = data.environments.some((environment) => environment.name === name)
  // A name the service said is taken (added elsewhere since the list was drawn).
  const taken = useFieldRefusal()
  const add = useAction(async () => {
    setFailed([])
    const slug = data.project.slug
    const { environment } = await createEnvironment(slug, name).catch((cause: unknown) => {
      throw cause instanceof ApiError && cause.status === 409 ? taken.refuse(cause) : cause
    })
    setName("")
    setSource("")
    // Said once the list shows the environment: on a slow network the toast came while it was not listed yet.
    let said: string | undefined
    try {
      if (source === "") {
        said = `Added ${environment.name}`
        return
      }
      const values = await exportValues(slug, source).catch((error: unknown) => {
        // A lost session is the app's to handle; anything else must not read as if nothing had been added.
        if (error instanceof ApiError && error.status === 401) throw error
        throw new Error(
          `Added ${environment.name} without secrets: ${source}'s could not be read. ${describeError(error)}`,
        )
      })
      const outcome = await copySecrets(
        slug,
        Object.entries(values).map(([key, value]) => ({
          key,
          from: source,
          to: environment.name,
          expectedVersion: 0,
          value,
        })),
      )
      setFailed(outcome.failed)
      const copied = outcome.copied.length
      said = `Added ${environment.name} with ${copied === 1 ? "1 secret" : `${copied} secrets`} copied from ${source}`
    } finally {
      // Added whatever the copy did: the list shows it.
      await data.reload()
      if (said !== undefined) toast(said)
    }
  })
  return (
    <form class="card stack" aria-label="Add an environment" onSubmit={add.submit}>
      <h2>New environment</h2>
      <div class="row top">
        <Field
          label="Environment name"
          required
          autoComplete="off"
          spellcheck={false}
          value={name}
          aria-invalid={problem !== undefined || exists || taken.shown(add.error)}
          errorId={taken.errorId(add.error)}
          hint={
            problem ??
            (exists
              ? `${name} is an environment of this project already.`
              : `Letters, digits, _, - and . (at most ${ENVIRONMENT_NAME_MAX_LENGTH}).`)
          }
          onInput={(event) => {
            setName(event.currentTarget.value)
            add.setError(undefined)
          }}
        />
        <Select label="Start with" value={source} onChange={(event) => setSource(event.currentTarget.value)}>
          <option value="">No secrets</option>
          {data.environments.map((environment) => (
            <option key={environment.id} value={environment.name}>
              A copy of {environment.name}'s secrets
            </option>
          ))}
        </Select>
      </div>
      {source === "" ? null : (
        <p class="hint">Copying reads {source}'s values as one export, which the audit log records.</p>
      )}
      <Alert error={add.error} id={taken.alertId} />
      <NotCopied failed={failed} />
      <div>
        <ActionButton type="submit" class="button primary" busy={add.busy} blocked={problem !== undefined || exists}>
          Add environment
        </ActionButton>
      </div>
    </form>
  )
}

/**
 * An export's link. A plain click fetches the file in the page, so that a refusal is said here (and an ended
 * session signs the person in and back) instead of the browser failing quietly or saving the error as the file.
 * A click with Ctrl, Cmd, Shift or Alt, or with another button, is left to the browser, as is the link's menu (a
 * new tab, Save link as): the `href` is the export's real address.
 */
const Download = ({
  href,
  filename,
  label,
  busy,
  onClick,
  children,
}: {
  readonly href: string
  readonly filename: string
  readonly label: string
  /** Its file is being fetched: said (`aria-busy`, drawn as busy), and a press meanwhile does nothing. */
  readonly busy: boolean
  readonly onClick: (href: string, filename: string) => void
  readonly children: string
}) => (
  <a
    class="button small"
    href={href}
    download={filename}
    aria-label={label}
    aria-busy={busy ? true : undefined}
    aria-disabled={busy ? true : undefined}
    onClick={(event) => {
      if (!isPlainClick(event)) return
      event.preventDefault()
      // Pressed again while the export is on its way (nothing seemed to happen yet): a second export, audited
      // as one, and a second file.
      if (!busy) onClick(href, filename)
    }}
  >
    {children}
  </a>
)

const EnvironmentList = ({ data }: { readonly data: ProjectData }) => {
  const [deleting, setDeleting] = useState<EnvironmentView>()
  const slug = data.project.slug
  // The exports being fetched, by address: each link says so while its own runs.
  const [fetching, setFetching] = useState<ReadonlySet<string>>(new Set())
  const download = useAction(async (href: string, filename: string) => {
    setFetching((before) => new Set(before).add(href))
    try {
      saveFile(await getFile(href), filename)
    } finally {
      setFetching((before) => {
        const after = new Set(before)
        after.delete(href)
        return after
      })
    }
  })
  return (
    <>
      <p class="hint">Downloads contain every value of the environment and are recorded in the audit log.</p>
      <Alert error={download.error} />
      {data.environments.length === 0 ? (
        <p class="muted">No environments.</p>
      ) : (
        <Table
          caption="Environments"
          columns={["Name", { label: "Created", class: "hide-narrow" }, "Download"]}
          actions={data.canWrite}
        >
          {data.environments.map((environment) => (
            <tr key={environment.id}>
              <th scope="row">{environment.name}</th>
              <td class="hide-narrow">{formatTime(environment.createdAt)}</td>
              <td>
                <div class="row">
                  <Download
                    href={exportUrl(slug, environment.name, "dotenv")}
                    busy={fetching.has(exportUrl(slug, environment.name, "dotenv"))}
                    filename={`${environment.name}.env`}
                    label={`Download ${environment.name} as .env`}
                    onClick={download.run}
                  >
                    .env
                  </Download>
                  <Download
                    href={exportUrl(slug, environment.name, "json")}
                    busy={fetching.has(exportUrl(slug, environment.name, "json"))}
                    filename={`${environment.name}.json`}
                    label={`Download ${environment.name} as JSON`}
                    onClick={download.run}
                  >
                    JSON
                  </Download>
                </div>
              </td>
              {data.canWrite ? (
                <td class="right">
                  <RowAction label={`Delete environment ${environment.name}`} onClick={() => setDeleting(environment)}>
                    Delete
                  </RowAction>
                </td>
              ) : null}
            </tr>
          ))}
        </Table>
      )}
      {data.canWrite ? <AddEnvironment data={data} /> : null}
      {data.environments.length === 0 ? null : <FromTheCommandLine data={data} />}
      {deleting === undefined ? null : (
        <DeleteEnvironment data={data} environment={deleting} onClose={() => setDeleting(undefined)} />
      )}
    </>
  )
}

/**
 * How a checkout runs with these secrets: the three commands, with this service's own address, the project and
 * its first environment filled in. The machine signs in through this browser (`coffer login --web`), which is
 * where the person already is; a machine without a browser, or CI, uses an API key of the project instead.
 */
const FromTheCommandLine = ({ data }: { readonly data: ProjectData }) => {
  const slug = data.project.slug
  const origin = location.origin
  const commands = [
    { label: "Once per machine, approved in this browser", command: `coffer login --web --url ${origin}` },
    {
      label: "Once per checkout",
      command: `coffer init --url ${origin} --project ${slug} --env ${data.environments[0]!.name}`,
    },
    { label: "Then run anything with the environment's secrets", command: "coffer run -- npm start" },
  ]
  return (
    <section class="card stack" aria-labelledby="command-line-heading">
      <h2 id="command-line-heading">From the command line</h2>
      <p class="hint">
        The <code>coffer</code> command reads an environment with an API key of this project. Each read of the values is
        recorded in the audit log, as a download is.
      </p>
      <CommandList commands={commands} />
      <p class="hint">
        The first command prints a link: open it here, pick this project and approve, and the machine receives a key
        named after it. Without a browser at hand, or in CI, make a key on{" "}
        <Link href={`/api-keys?project=${encodeURIComponent(slug)}`}>API keys</Link> and paste it into{" "}
        <code>coffer login --url {origin}</code>, or set it as <code>COFFER_TOKEN</code>.
      </p>
    </section>
  )
}

export const Environments = ({ params }: { readonly params: Params }) => (
  <ProjectFrame slug={params.slug!}>{(data) => <EnvironmentList data={data} />}</ProjectFrame>
)
