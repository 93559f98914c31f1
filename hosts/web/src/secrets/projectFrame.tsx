/**
 * The frame of a project's pages: loads the project and its environments once, shows its name, the caller's
 * role and the project tabs (`projectTabs` in `routes.ts`), and hands both to the page. A project out of reach
 * answers 404 like one that does not exist (seed 001 §5 rule 4), and is shown so. A change the service refuses as
 * not allowed reads the project again: the role shown, and the controls it offers, are then the person's now.
 */
import type { ComponentChildren } from "preact"
import { useEffect } from "preact/hooks"
import { ApiError, onChangeForbidden } from "../api/client.js"
import { type EnvironmentView, getProject, type ProjectView } from "../api/secrets.js"
import { Alert, LoadFailed, Loading } from "../ui/components.js"
import { Link, useLocation } from "../ui/router.js"
import { useAsync } from "../ui/useAsync.js"
import { roleLabel } from "./roles.js"
import { projectTabs } from "./tabs.js"

export interface ProjectData {
  readonly project: ProjectView
  readonly environments: ReadonlyArray<EnvironmentView>
  /** Whether the caller may change secrets and environments (owner or write member). */
  readonly canWrite: boolean
  readonly reload: () => Promise<void>
}

export const projectPath = (slug: string, rest = "") => `/projects/${encodeURIComponent(slug)}${rest}`

const ProjectTabs = ({ slug, pathname }: { readonly slug: string; readonly pathname: string }) => (
  <nav class="tabs" aria-label="Project">
    {projectTabs.map((tab) => {
      const href = projectPath(slug, tab.path)
      return (
        <Link key={tab.path} href={href} aria-current={pathname === href ? "page" : undefined}>
          {tab.label}
        </Link>
      )
    })}
  </nav>
)

export const ProjectFrame = ({
  slug,
  children,
}: {
  readonly slug: string
  readonly children: (data: ProjectData) => ComponentChildren
}) => {
  const { pathname } = useLocation()
  const loaded = useAsync(() => getProject(slug), [slug])
  const { reload } = loaded
  useEffect(() => onChangeForbidden(() => void reload()), [reload])
  if (loaded.data === undefined) {
    if (loaded.error instanceof ApiError && loaded.error.status === 404) {
      return (
        <section class="stack">
          <h1>Project not found</h1>
          <p>
            There is no project “{slug}”, or you are not a member of it. <Link href="/projects">Your projects</Link>
          </p>
        </section>
      )
    }
    return loaded.error === undefined ? (
      <Loading what="the project" />
    ) : (
      // Not loaded (the service out of reach): the page still says which project and tab it is, by the address.
      <section class="stack">
        <h1>{slug}</h1>
        <ProjectTabs slug={slug} pathname={pathname} />
        <LoadFailed error={loaded.error} retry={loaded.reload} />
      </section>
    )
  }
  const { project, environments } = loaded.data
  return (
    <section class="stack">
      <div class="project-head">
        <h1>{project.name}</h1>
        <span class="badge">{roleLabel(project.role)}</span>
      </div>
      <ProjectTabs slug={project.slug} pathname={pathname} />
      <Alert error={loaded.error} />
      {children({ project, environments, canWrite: project.role !== "read", reload: loaded.reload })}
    </section>
  )
}
