/**
 * `JSON.parse` for files that may hold secrets. V8's own message quotes the text around the mistake (a slice of a
 * password in a broken `.env.json`, of a token in a broken config file), so a failure here is only where the text
 * stops being JSON, as a line and a column, and why in words that quote nothing of it.
 */
import * as Result from "effect/Result"

class Stop {
  constructor(
    readonly at: number,
    readonly reason: string,
  ) {}
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"])
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"])
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const HEX4 = /[0-9a-fA-F]{4}/y

/** The offset of the first mistake in `text` (RFC 8259) and what it is; `undefined` when there is none. */
const firstMistake = (text: string): Stop | undefined => {
  let at = 0
  const stop = (reason: string): never => {
    throw new Stop(at, reason)
  }
  const space = () => {
    while (WHITESPACE.has(text[at] ?? "")) at += 1
  }
  const string = () => {
    at += 1
    for (;;) {
      const character = text[at]
      if (character === undefined) return stop("a string is never closed")
      if (character === '"') {
        at += 1
        return
      }
      if (character === "\\") {
        const next = text[at + 1] ?? ""
        if (next === "u") {
          HEX4.lastIndex = at + 2
          if (!HEX4.test(text)) return stop("a \\u escape needs four hexadecimal digits")
          at += 6
          continue
        }
        if (!ESCAPES.has(next)) return stop("an unknown escape in a string")
        at += 2
        continue
      }
      if (character < " ") return stop("a line break or control character inside a string")
      at += 1
    }
  }
  const sequence = (close: string, item: () => void) => {
    at += 1
    space()
    if (text[at] === close) {
      at += 1
      return
    }
    for (;;) {
      item()
      space()
      if (text[at] === ",") {
        at += 1
        continue
      }
      if (text[at] === close) {
        at += 1
        return
      }
      return stop(`expected ',' or '${close}'`)
    }
  }
  const member = () => {
    space()
    if (text[at] !== '"') stop("expected a key in double quotes")
    string()
    space()
    if (text[at] !== ":") stop("expected ':' after a key")
    at += 1
    value()
  }
  const value = (): void => {
    space()
    const character = text[at]
    if (character === undefined) stop("the text ends where a value should be")
    else if (character === "{") sequence("}", member)
    else if (character === "[") sequence("]", value)
    else if (character === '"') string()
    else {
      NUMBER.lastIndex = at
      const word = ["true", "false", "null"].find((candidate) => text.startsWith(candidate, at))
      if (NUMBER.test(text)) at = NUMBER.lastIndex
      else if (word !== undefined) at += word.length
      else stop("expected a value (a string in double quotes, a number, an object…)")
    }
  }
  try {
    value()
    space()
    if (at < text.length) stop("unexpected text after the value")
    return undefined
  } catch (error) {
    if (error instanceof Stop) return error
    throw error
  }
}

/** `line L, column C` of offset `at` in `text`, both from 1. */
const position = (text: string, at: number) => {
  const before = text.slice(0, at)
  const lineStart = before.lastIndexOf("\n") + 1
  return `line ${before.split("\n").length}, column ${at - lineStart + 1}`
}

/** The value of JSON `text`, or why it is not JSON: a position and a reason, never a piece of the text. */
export const parseJsonText = (text: string): Result.Result<unknown, string> => {
  try {
    return Result.succeed(JSON.parse(text) as unknown)
  } catch {
    const mistake = firstMistake(text)
    return Result.fail(
      mistake === undefined ? "not valid JSON" : `not valid JSON at ${position(text, mistake.at)}: ${mistake.reason}`,
    )
  }
}
