/** The dashboard's addresses, in one place: every link and navigation builds them here. */
import type { NavItem } from "../ui/layout.js"

const seg = (value: string) => encodeURIComponent(value)

export const platformsPath = "/platforms"
/** Where a lost person is sent: the platform list. */
export const home: NavItem = { href: platformsPath, label: "Go to the platforms" }
export const platformPath = (platform: string) => `/platforms/${seg(platform)}`
export type SchemaTab = "content" | "output" | "inheritance" | "history"
export const schemaPath = (platform: string, version: string, tab: SchemaTab = "content") =>
  `${platformPath(platform)}/versions/${seg(version)}${tab === "content" ? "" : `/${tab}`}`
/** `platform/version` (a schema id as the service writes it) as the address of that schema. */
export const schemaIdPath = (id: string, tab?: SchemaTab) => {
  const slash = id.indexOf("/")
  return slash === -1 ? platformPath(id) : schemaPath(id.slice(0, slash), id.slice(slash + 1), tab)
}
