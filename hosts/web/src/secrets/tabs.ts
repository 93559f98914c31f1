/**
 * The tabs of a project's pages: `path` is appended to `/projects/<slug>`. Kept apart from `routes.ts` so that
 * the frame every project page uses does not import the pages.
 */
export const projectTabs: ReadonlyArray<{ readonly path: string; readonly label: string }> = [
  { path: "", label: "Secrets" },
  { path: "/compare", label: "Compare" },
  { path: "/environments", label: "Environments" },
  { path: "/people", label: "People" },
  { path: "/audit", label: "Audit log" },
]
