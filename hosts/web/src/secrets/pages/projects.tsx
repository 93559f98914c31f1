/**
 * Projects (issue 12 §2): the caller's projects with their role; create one (the slug its name makes is shown
 * before saving, and a taken slug is explained); delete one (owner only, after typing its slug).
 */
import { slugOf } from "@coffer/secrets"
import { useState } from "preact/hooks"
import { ApiError } from "../../api/client.js"
import { createProject, deleteProject, listProjects, type ProjectView } from "../../api/secrets.js"
import { ActionButton, Alert, Field, formatTime, LoadFailed, Loading } from "../../ui/components.js"
import { ConfirmDialog } from "../../ui/confirmDialog.js"
import { useFieldRefusal } from "../../ui/fieldRefusal.js"
import { Link, navigate } from "../../ui/router.js"
import { Table } from "../../ui/table.js"
import { toast } from "../../ui/toast.js"
import { useAction } from "../../ui/useAction.js"
import { useAsync } from "../../ui/useAsync.js"
import { roleLabel } from "../roles.js"

const CreateProject = () => {
  const [name, setName] = useState("")
  // The address the service said is taken: only it can say so, after the form is sent.
  const taken = useFieldRefusal()
  const slug = slugOf(name)
  const create = useAction(async () => {
    try {
      const { project } = await createProject(name)
      toast(`Created ${project.name}`)
      navigate(`/projects/${encodeURIComponent(project.slug)}`)
    } catch (cause) {
      if (!(cause instanceof ApiError && cause.status === 409)) throw cause
      throw taken.refuse(
        cause,
        `A project with the address “${slug}” already exists: names that differ only in case, accents or punctuation make the same address. Choose another name.`,
      )
    }
  })
  return (
    <form class="card stack" aria-label="Create a project" onSubmit={create.submit}>
      <h2>New project</h2>
      <Field
        label="Project name"
        name="name"
        required
        maxLength={100}
        value={name}
        aria-invalid={taken.shown(create.error)}
        errorId={taken.errorId(create.error)}
        onInput={(event) => {
          setName(event.currentTarget.value)
          create.setError(undefined)
        }}
        hint={
          name.trim() === "" ? (
            "Its address (slug) is made from the name."
          ) : slug === undefined ? (
            "The address is made of the name’s Latin letters (a–z, accents dropped) and digits: add at least one."
          ) : (
            <>
              Address: <code data-testid="slug-preview">/projects/{slug}</code>
            </>
          )
        }
      />
      <p class="hint">It starts with the environments development, staging and production.</p>
      <Alert error={create.error} id={taken.alertId} />
      <div>
        <ActionButton class="button primary" type="submit" busy={create.busy} blocked={slug === undefined}>
          Create project
        </ActionButton>
      </div>
    </form>
  )
}

const DeleteProject = ({
  project,
  onDeleted,
  onClose,
}: {
  readonly project: ProjectView
  /** Reads the list again, then closes the dialog. */
  readonly onDeleted: () => Promise<void>
  readonly onClose: () => void
}) => (
  <ConfirmDialog
    title={`Delete ${project.name}?`}
    action="Delete project"
    typed={project.slug}
    onClose={onClose}
    run={async () => {
      await deleteProject(project.slug)
      // The list is fresh before the toast says it is done: the project deleted is not still listed beside it, its
      // row leaving under the pointer a moment later.
      await onDeleted()
      toast(`Deleted ${project.name}`)
    }}
    gone={{ said: `${project.name} was already deleted`, after: onDeleted }}
  >
    <p>
      This deletes its environments, every secret and its history, its members and its API keys. It cannot be undone.
    </p>
  </ConfirmDialog>
)

export const Projects = () => {
  const projects = useAsync(listProjects, [])
  const [deleting, setDeleting] = useState<ProjectView>()
  const list = projects.data?.projects
  return (
    <section class="stack">
      <h1>Projects</h1>
      <Alert error={list === undefined ? undefined : projects.error} />
      {list === undefined ? (
        projects.loading ? (
          <Loading what="projects" />
        ) : (
          <LoadFailed error={projects.error} retry={projects.reload} />
        )
      ) : list.length === 0 ? (
        <p class="muted">You are in no project yet. Create one below, or open an invite link someone sent you.</p>
      ) : (
        <Table caption="Your projects" columns={["Name", "Address", "Your role", "Created"]} actions stacked>
          {list.map((project) => (
            <tr key={project.id}>
              <td>
                <Link href={`/projects/${encodeURIComponent(project.slug)}`}>{project.name}</Link>
              </td>
              <td data-label="Address">
                <code>{project.slug}</code>
              </td>
              <td data-label="Your role">{roleLabel(project.role)}</td>
              <td data-label="Created" class="nowrap">
                {formatTime(project.createdAt)}
              </td>
              <td class="right">
                {project.role === "owner" ? (
                  <button
                    type="button"
                    class="button danger ghost"
                    aria-label={`Delete project ${project.name}`}
                    onClick={() => setDeleting(project)}
                  >
                    Delete
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </Table>
      )}
      {/* Once the list above it is in (or refused): drawn under "Loading projects…", the form jumped down by the
          whole list as it came, from under the pointer and a name being typed. A refusal keeps it through Try again,
          rather than taking it away, and the name typed in it, while the list is asked for again. */}
      {list === undefined && projects.error === undefined ? null : <CreateProject />}
      {deleting === undefined ? null : (
        <DeleteProject
          project={deleting}
          onDeleted={async () => {
            await projects.reload()
            setDeleting(undefined)
          }}
          onClose={() => setDeleting(undefined)}
        />
      )}
    </section>
  )
}
