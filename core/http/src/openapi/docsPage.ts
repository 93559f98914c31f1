/**
 * The interactive reference at `/docs`: a small page that reads `/openapi.json` and lists every operation by tag,
 * each opening onto its parameters, body, responses and their schemas, with a filter. It is served from this
 * package's own text (no CDN, nothing fetched from elsewhere) under a policy that allows only `'self'`: the script
 * and the style are files of their own, nothing is inline, and the script builds the page with DOM calls and
 * `textContent` only, so nothing in the document can become markup. Its links are relative, so the reference works
 * where an embedder mounts the app under a prefix (`/config/docs` reads `/config/openapi.json`).
 */

export const DOCS_SCRIPT_PATH = "/docs/docs.js"
export const DOCS_STYLE_PATH = "/docs/docs.css"

export const docsHtml = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title.replace(/[<>&"]/g, "")} — API reference</title>
<link rel="stylesheet" href="${DOCS_STYLE_PATH.slice(1)}">
<script type="module" src="${DOCS_SCRIPT_PATH.slice(1)}"></script>
</head>
<body>
<header><h1 id="title">API reference</h1><p id="version"></p>
<input id="filter" type="search" placeholder="Filter by path, method or summary" aria-label="Filter"></header>
<main id="reference" aria-busy="true"><p>Loading <a href="openapi.json">openapi.json</a>…</p></main>
</body>
</html>
`

export const DOCS_STYLE = `
:root { font-family: system-ui, sans-serif; color: #1d2430; background: #fafbfc; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem 4rem; }
header { border-bottom: 1px solid #d8dde4; margin-bottom: 1rem; }
h1 { margin: 0.5rem 0 0; }
#filter { width: 100%; padding: 0.5rem; margin: 0.75rem 0; font-size: 1rem; }
h2 { margin-top: 2rem; font-size: 1.2rem; }
details.operation { border: 1px solid #d8dde4; border-radius: 6px; margin: 0.4rem 0; background: #fff; }
details.operation > summary { cursor: pointer; padding: 0.5rem 0.75rem; display: flex; gap: 0.75rem; align-items: baseline; }
details.operation > div { padding: 0 0.75rem 0.75rem; }
.method { font-weight: 700; font-family: ui-monospace, monospace; min-width: 4.5rem; }
.method.get { color: #0b6bcb; } .method.post { color: #1a7f37; } .method.put, .method.patch { color: #9a6700; }
.method.delete { color: #cf222e; }
.path { font-family: ui-monospace, monospace; }
.summary { color: #57606a; }
.security { font-size: 0.85rem; color: #57606a; }
pre { background: #f3f5f7; padding: 0.5rem; overflow-x: auto; font-size: 0.85rem; }
table { border-collapse: collapse; } td, th { text-align: left; padding: 0.2rem 0.6rem 0.2rem 0; vertical-align: top; }
.description { white-space: pre-wrap; }
[hidden] { display: none; }
`

export const DOCS_SCRIPT = `
const element = (tag, attributes = {}, ...children) => {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value)
  for (const child of children) node.append(child)
  return node
}
const text = (tag, value, attributes) => element(tag, attributes, String(value ?? ""))

const resolve = (document, schema) => {
  const seen = new Set()
  const walk = (node) => {
    if (Array.isArray(node)) return node.map(walk)
    if (node === null || typeof node !== "object") return node
    if (typeof node.$ref === "string") {
      const name = node.$ref.split("/").pop()
      if (seen.has(name)) return { $ref: name }
      seen.add(name)
      const resolved = walk(document.components?.schemas?.[name] ?? {})
      seen.delete(name)
      return resolved
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)]))
  }
  return walk(schema)
}

const schemaBlock = (document, schema) => text("pre", JSON.stringify(resolve(document, schema), null, 2))

const operationView = (document, path, method, operation) => {
  const security = (operation.security ?? []).map((entry) => Object.keys(entry).join(" + ")).join(" or ")
  const body = element("div")
  if (operation.description) body.append(text("p", operation.description, { class: "description" }))
  body.append(text("p", "Credentials: " + (security || "none"), { class: "security" }))
  const parameters = operation.parameters ?? []
  if (parameters.length > 0) {
    const table = element("table", {}, element("tr", {}, text("th", "Parameter"), text("th", "In"), text("th", "About")))
    for (const parameter of parameters) {
      table.append(element("tr", {}, text("td", parameter.name), text("td", parameter.in), text("td", parameter.description ?? "")))
    }
    body.append(text("h4", "Parameters"), table)
  }
  const request = operation.requestBody?.content?.["application/json"]
  if (request) body.append(text("h4", "Request body (JSON)"), text("p", operation.requestBody.description ?? ""), schemaBlock(document, request.schema))
  body.append(text("h4", "Responses"))
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    body.append(text("h5", status + " — " + (response.description ?? "")))
    for (const [type, content] of Object.entries(response.content ?? {})) {
      body.append(text("p", type, { class: "security" }), schemaBlock(document, content.schema))
    }
  }
  const summary = element(
    "summary",
    {},
    text("span", method.toUpperCase(), { class: "method " + method }),
    text("span", path, { class: "path" }),
    text("span", operation.summary ?? "", { class: "summary" }),
  )
  const view = element("details", { class: "operation", "data-search": (method + " " + path + " " + (operation.summary ?? "")).toLowerCase() }, summary, body)
  return view
}

const render = (document) => {
  const root = window.document.getElementById("reference")
  window.document.getElementById("title").textContent = document.info?.title ?? "API reference"
  window.document.getElementById("version").textContent = "Version " + (document.info?.version ?? "")
  const sections = new Map()
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const tag = operation.tags?.[0] ?? "Other"
      if (!sections.has(tag)) sections.set(tag, [])
      sections.get(tag).push(operationView(document, path, method, operation))
    }
  }
  root.replaceChildren(text("p", document.info?.description ?? "", { class: "description" }))
  for (const [tag, views] of sections) {
    root.append(element("section", { "data-tag": tag }, text("h2", tag), ...views))
  }
  root.setAttribute("aria-busy", "false")
  const filter = window.document.getElementById("filter")
  filter.addEventListener("input", () => {
    const query = filter.value.trim().toLowerCase()
    for (const view of root.querySelectorAll("details.operation")) {
      view.hidden = query !== "" && !view.dataset.search.includes(query)
    }
  })
}

fetch("openapi.json", { headers: { accept: "application/json" } })
  .then((response) => {
    if (!response.ok) throw new Error("openapi.json answered " + response.status)
    return response.json()
  })
  .then(render)
  .catch((error) => {
    window.document.getElementById("reference").replaceChildren(text("p", "Could not load the reference: " + error.message))
  })
`
