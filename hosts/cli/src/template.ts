/**
 * The templates `coffer secrets substitute` fills: a file of any format with `{{ coffer:KEY }}` where a secret's
 * value goes, as 1Password's `op inject` and Doppler's `secrets substitute` fill theirs. The `coffer:` prefix keeps
 * the references apart from what other template languages put between double braces (Helm's `{{ .Values.port }}`,
 * GitHub Actions' `${{ secrets.TOKEN }}`, Jinja's `{{ name }}`), which are left as they are.
 *
 * A value goes in as it is. `{{ coffer:KEY | json }}` puts it in as a JSON string, quotes and escapes included, for
 * a JSON or YAML file whose value may hold a quote or a line break (a PEM key).
 */
import { isSecretKey } from "@coffer/secrets"

/** Where a reference starts: `{{`, optional blanks, `coffer:`. */
const OPENING = /\{\{[ \t]*coffer:/g

/** A whole reference from its opening on: the key, optionally `|` and a filter, `}}`, blanks allowed between. */
const REFERENCE = /\{\{[ \t]*coffer:[ \t]*([^\s|}]*)[ \t]*(?:\|[ \t]*([^\s|}]*)[ \t]*)?\}\}/y

const FILTERS = {
  json: (value: string) => JSON.stringify(value),
} as const satisfies Record<string, (value: string) => string>

export interface Reference {
  readonly key: string
  readonly fill: (value: string) => string
  readonly start: number
  readonly end: number
}

/** Why a reference cannot be filled, with the line it is on (from 1). */
export interface Unfillable {
  readonly line: number
  readonly problem: string
}

export interface ParsedTemplate {
  readonly text: string
  readonly references: ReadonlyArray<Reference>
  readonly unfillable: ReadonlyArray<Unfillable>
}

const lineAt = (text: string, index: number) => {
  let line = 1
  for (let at = text.indexOf("\n"); at !== -1 && at < index; at = text.indexOf("\n", at + 1)) line++
  return line
}

/**
 * Every `{{ coffer:` in `text` starts a reference: one that is not whole (`}}` missing, a second filter, a line
 * break inside) cannot be filled, and is refused rather than left in the output as text a program would read as
 * the value.
 */
export const parseTemplate = (text: string): ParsedTemplate => {
  const references: Array<Reference> = []
  const unfillable: Array<Unfillable> = []
  let covered = 0
  for (const opening of text.matchAll(OPENING)) {
    const start = opening.index
    // Inside a reference already read (a key holding `{{coffer:`, which the key's own check refuses).
    if (start < covered) continue
    const refuse = (problem: string) => unfillable.push({ line: lineAt(text, start), problem })
    REFERENCE.lastIndex = start
    const match = REFERENCE.exec(text)
    if (match === null) {
      const rest = text.slice(start).split(/\r?\n/, 1)[0]!
      const shown = rest.length > 40 ? `${rest.slice(0, 40)}…` : rest
      refuse(`${shown} is not a whole reference ({{ coffer:KEY }} or {{ coffer:KEY | json }})`)
      continue
    }
    const [whole, key = "", filter] = match
    covered = start + whole.length
    if (!isSecretKey(key)) {
      refuse(key === "" ? `${whole} names no key` : `${whole} does not name a secret key`)
      continue
    }
    if (filter !== undefined && !Object.hasOwn(FILTERS, filter)) {
      refuse(`${whole}: no filter ${JSON.stringify(filter)} (there is | json)`)
      continue
    }
    const fill = filter === undefined ? (value: string) => value : FILTERS[filter as keyof typeof FILTERS]
    references.push({ key, fill, start, end: start + whole.length })
  }
  return { text, references, unfillable }
}

/** The keys a template refers to, each once, in the order they are first used. */
export const keysOf = (template: ParsedTemplate): ReadonlyArray<string> => [
  ...new Set(template.references.map((reference) => reference.key)),
]

/** The template with every reference filled from `values`, which must hold each of its keys. */
export const fillTemplate = (template: ParsedTemplate, values: Readonly<Record<string, string>>): string => {
  let filled = ""
  let from = 0
  for (const reference of template.references) {
    filled += template.text.slice(from, reference.start) + reference.fill(values[reference.key]!)
    from = reference.end
  }
  return filled + template.text.slice(from)
}
