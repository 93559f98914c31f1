/**
 * Reading a JSON file of secrets, the inverse of the JSON export (seed 001 §4, `GET …/secrets/json`): one object
 * mapping each key to its value. The web app's import and the command line's `push` and `import` read it alike.
 *
 * A secret's value is text. Other secret managers' exports and hand-written files hold numbers and `true`/`false`
 * (`{"PORT": 8080}`), so those are taken as their text as written in the file: `8080` as "8080", `1.50` as "1.50".
 * `JSON.parse` would give 1.5 for the second, and round an integer longer than a double holds (an account
 * number), changing the value imported. `null`, an array or an object has no such text, and is refused.
 */

/** What a member's value becomes: its text, or why it has none. */
export type JsonImportValue =
  | {
      readonly _tag: "Text"
      readonly value: string
      /** A JSON number or `true`/`false`, whose text as written is the value. */
      readonly converted: "number" | "boolean" | undefined
    }
  | { readonly _tag: "Refused"; readonly reason: string }

export interface JsonImportMember {
  readonly key: string
  readonly value: JsonImportValue
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"])

const text = (value: string, converted: "number" | "boolean" | undefined): JsonImportValue => ({
  _tag: "Text",
  value,
  converted,
})

const refused = (reason: string): JsonImportValue => ({ _tag: "Refused", reason })

/** A member's value from its source text, which is valid JSON. The reasons complete "the value of KEY …". */
const importedValue = (source: string): JsonImportValue => {
  switch (source[0]) {
    case '"':
      return text(JSON.parse(source) as string, undefined)
    case "t":
    case "f":
      return text(source, "boolean")
    case "n":
      return refused('is null: write "" for an empty value')
    case "[":
      return refused("is an array: a value is a string, a number or true/false")
    case "{":
      return refused("is an object: a value is a string, a number or true/false")
    default:
      return text(source, "number")
  }
}

/**
 * The members of `json`, which must be valid JSON (RFC 8259) holding one object: in the order written, a key
 * given twice listed twice. Being valid, it is only walked to find where each member's value starts and ends.
 */
export const jsonImportMembers = (json: string): ReadonlyArray<JsonImportMember> => {
  const members: Array<JsonImportMember> = []
  let at = json.indexOf("{") + 1
  const space = () => {
    while (WHITESPACE.has(json[at] ?? "")) at++
  }
  const string = () => {
    const start = at
    at++
    while (json[at] !== '"') at += json[at] === "\\" ? 2 : 1
    at++
    return json.slice(start, at)
  }
  const value = () => {
    const start = at
    const first = json[at]
    if (first === '"') return string()
    if (first === "{" || first === "[") {
      let depth = 0
      do {
        const character = json[at]
        if (character === '"') string()
        else {
          if (character === "{" || character === "[") depth++
          else if (character === "}" || character === "]") depth--
          at++
        }
      } while (depth > 0)
      return json.slice(start, at)
    }
    while (at < json.length && json[at] !== "," && json[at] !== "}" && !WHITESPACE.has(json[at] ?? "")) at++
    return json.slice(start, at)
  }
  space()
  while (json[at] === '"') {
    const key = JSON.parse(string()) as string
    space()
    at++ // the colon
    space()
    members.push({ key, value: importedValue(value()) })
    space()
    if (json[at] === ",") at++
    space()
  }
  return members
}
