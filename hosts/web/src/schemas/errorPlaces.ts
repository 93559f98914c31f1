/**
 * Where a refused save's problem arises, read from the service's message (`core/schemas/src/domain/errors.ts`):
 * the line of the editor's text where the reference the message names is written, and the schemas of a circular
 * chain (`Circular dependency detected: a/1 -> b/1 -> a/1`) or the schema holding an unresolved reference
 * (`Unresolved @extends reference "x" in b/1: …`) or invalid content (`… in b/1: …`), so the editor can link to
 * each.
 */
import { quote } from "./versions.js"

const CIRCULAR = /^Circular dependency detected: (.+)$/
const IN_SCHEMA = /^(?:Unresolved @extends reference "(?:[^"\\]|\\.)*"|Invalid schema content) in (\S+?):/

/** The schemas the message names, in its order, each once; empty when it names none. */
export const schemasNamedIn = (message: string): Array<string> => {
  const circular = CIRCULAR.exec(message)
  if (circular !== null) return [...new Set(circular[1]!.split(" -> "))]
  const inSchema = IN_SCHEMA.exec(message)
  return inSchema === null ? [] : [inSchema[1]!]
}

/** The line (1-based) of `text` where a reference named in `message` is written, if any. */
export const lineOfReference = (
  text: string,
  references: ReadonlyArray<string>,
  message: string,
): number | undefined => {
  // The reference the message is about first (`… @extends reference "base/9.9.9"`): a plain search alone took
  // "base" for it, written in it and quoted again in the reason (`of platform "base"`), and gave the wrong line.
  const named =
    references.find((reference) => message.includes(`@extends reference ${quote(reference)}`)) ??
    references.find((reference) => message.includes(reference))
  if (named === undefined) return undefined
  const index = text.indexOf(JSON.stringify(named))
  return index === -1 ? undefined : text.slice(0, index).split("\n").length
}
