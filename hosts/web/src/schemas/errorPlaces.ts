/**
 * Where a refused save's problem arises, read from the service's message (`core/schemas/src/domain/errors.ts`):
 * the schemas of a circular chain (`Circular dependency detected: a/1 -> b/1 -> a/1`), or the schema holding an
 * unresolved reference (`Unresolved @extends reference "x" in b/1: …`) or invalid content (`… in b/1: …`), so the
 * editor can link to each. Empty when the message names no schema.
 */
const CIRCULAR = /^Circular dependency detected: (.+)$/
const IN_SCHEMA = /^(?:Unresolved @extends reference "(?:[^"\\]|\\.)*"|Invalid schema content) in (\S+?):/

export const schemasNamedIn = (message: string): Array<string> => {
  const circular = CIRCULAR.exec(message)
  if (circular !== null) return [...new Set(circular[1]!.split(" -> "))]
  const inSchema = IN_SCHEMA.exec(message)
  return inSchema === null ? [] : [inSchema[1]!]
}
