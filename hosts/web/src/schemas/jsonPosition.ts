/**
 * Where a JSON text stops being JSON, as a line and column (1-based), for the editor to point at. Browsers'
 * `JSON.parse` messages often give no position ("Unexpected token '}', … is not valid JSON"), so this scans the
 * text with the JSON grammar and reports the first offending character (or the end, for a text cut short).
 * It only locates: `JSON.parse` still decides what is valid.
 */

export interface TextPosition {
  readonly line: number
  readonly column: number
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"])
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
// Control characters (U+0000 to U+001F) may not appear raw in a JSON string; the class is built from a string
// so that the pattern itself holds none.
const STRING = new RegExp(
  `"(?:[^"\\\\${String.fromCharCode(0)}-${String.fromCharCode(0x1f)}]|\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4}))*"`,
  "y",
)

class Stop {
  constructor(readonly offset: number) {}
}

/** The offset of the first character that breaks the grammar, or `undefined` when the text is JSON. */
export const jsonErrorOffset = (text: string): number | undefined => {
  let at = 0
  const space = () => {
    while (at < text.length && WHITESPACE.has(text[at]!)) at++
  }
  const match = (pattern: RegExp) => {
    pattern.lastIndex = at
    if (!pattern.test(text)) throw new Stop(at)
    at = pattern.lastIndex
  }
  const literal = (word: string) => {
    for (const character of word) {
      if (text[at] !== character) throw new Stop(at)
      at++
    }
  }
  const member = () => {
    space()
    if (text[at] !== '"') throw new Stop(at)
    match(STRING)
    space()
    if (text[at] !== ":") throw new Stop(at)
    at++
  }
  // Nesting is followed with an explicit stack, so that no depth of brackets can overflow the call stack.
  const stack: Array<"}" | "]"> = []
  let expectValue = true
  try {
    for (;;) {
      space()
      if (expectValue) {
        const character = text[at]
        if (character === "{" || character === "[") {
          const close = character === "{" ? "}" : "]"
          at++
          space()
          if (text[at] === close) {
            at++
            expectValue = false
            continue
          }
          stack.push(close)
          if (close === "}") member()
          continue
        }
        if (character === '"') match(STRING)
        else if (character === "t") literal("true")
        else if (character === "f") literal("false")
        else if (character === "n") literal("null")
        else match(NUMBER)
        expectValue = false
        continue
      }
      const close = stack.at(-1)
      if (close === undefined) break
      if (text[at] === close) {
        stack.pop()
        at++
        continue
      }
      if (text[at] !== ",") throw new Stop(at)
      at++
      if (close === "}") member()
      expectValue = true
    }
    return at < text.length ? at : undefined
  } catch (error) {
    if (error instanceof Stop) return error.offset
    throw error
  }
}

/** `offset` of `text` as a line and column. */
export const positionAt = (text: string, offset: number): TextPosition => {
  const before = text.slice(0, offset).split("\n")
  return { line: before.length, column: before.at(-1)!.length + 1 }
}
