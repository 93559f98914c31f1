/**
 * Reading what the user types or pipes in: a whole piped stdin, or one line typed with the echo turned off (an
 * API key, a secret value) so it stays out of the terminal's scrollback and the shell's history.
 */
import { createInterface } from "node:readline"
import * as Effect from "effect/Effect"
import { type CofferFailure, usage } from "./failure.js"
import { readTextFile, utf8Text } from "./utf8Text.js"

export const stdinIsTerminal = () => process.stdin.isTTY === true

/** All of stdin, as UTF-8 text (refused when it is not). */
export const readStdin = Effect.tryPromise({
  try: async () => {
    const chunks: Array<Buffer> = []
    for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)
    return Buffer.concat(chunks)
  },
  catch: (error) => usage(`cannot read stdin: ${error instanceof Error ? error.message : error}`),
}).pipe(Effect.flatMap((bytes) => utf8Text(bytes, "stdin")))

/**
 * A file the user names, or `-` for what is piped in (`what` names it in the refusal). Typed on a terminal, a file
 * would be waited for with nothing said, so `-` there is refused.
 */
export const readFileOrStdin = (file: string, what: string) =>
  file !== "-"
    ? readTextFile(file)
    : stdinIsTerminal()
      ? Effect.fail(usage(`- reads the ${what} from stdin, which is a terminal here: pipe it in, or name its file`))
      : readStdin

/** Piped input without the one line break `echo` and here-strings add. */
export const withoutFinalNewline = (text: string) => text.replace(/\r?\n$/, "")

/**
 * Asks for one line on the terminal without echoing it; Ctrl-D gives up, and so does a paste of more than one
 * line. Ctrl-C interrupts, so `coffer` ends with 130 as a shell reports a program that SIGINT ended: in raw mode
 * the terminal sends it as a character, not as the signal.
 */
export const readHidden = (prompt: string) =>
  Effect.callback<string, CofferFailure>((resume) => {
    const input = process.stdin
    // Echo goes off before the prompt shows, so nothing typed in answer to it can be echoed.
    input.setRawMode(true)
    process.stderr.write(prompt)
    input.resume()
    input.setEncoding("utf8")
    let typed = ""
    const finish = (outcome: Effect.Effect<string, CofferFailure>) => {
      input.off("data", onData)
      input.setRawMode(false)
      input.pause()
      process.stderr.write("\n")
      resume(outcome)
    }
    const onData = (chunk: string) => {
      const characters = [...chunk]
      for (const [index, character] of characters.entries()) {
        if (character === "\r" || character === "\n") {
          // Text after the line break in the same read was pasted with it (a PEM, a key and more): taking the
          // first line alone would store part of the value and say nothing.
          if (/[^\r\n]/.test(characters.slice(index + 1).join("")))
            return finish(Effect.fail(usage("what was pasted holds more than one line: pipe it in instead (`< file`)")))
          return finish(Effect.succeed(typed))
        }
        if (character === "\u0003") return finish(Effect.interrupt)
        if (character === "\u0004") return finish(Effect.fail(usage("cancelled")))
        if (character === "\u007f" || character === "\b") typed = typed.slice(0, -1)
        else typed += character
      }
    }
    input.on("data", onData)
    return Effect.sync(() => {
      input.off("data", onData)
      input.setRawMode(false)
      input.pause()
    })
  })

/** A value from the terminal (hidden) or from piped stdin. */
export const readSecretInput = (prompt: string) =>
  stdinIsTerminal() ? readHidden(prompt) : Effect.map(readStdin, withoutFinalNewline)

/**
 * One line typed on the terminal, echoed as it is typed: an answer to a question, not a secret. Before an answer,
 * nothing is done: Ctrl-D gives up, Ctrl-C interrupts (130), as in `readHidden`.
 */
export const readLine = (prompt: string) =>
  Effect.callback<string, CofferFailure>((resume) => {
    const lines = createInterface({ input: process.stdin, output: process.stderr, terminal: true })
    let answered = false
    let interrupted = false
    lines.question(prompt, (answer) => {
      answered = true
      lines.close()
      resume(Effect.succeed(answer))
    })
    lines.on("SIGINT", () => {
      interrupted = true
      lines.close()
    })
    lines.on("close", () => {
      if (!answered) {
        process.stderr.write("\n")
        resume(interrupted ? Effect.interrupt : Effect.fail(usage("cancelled")))
      }
    })
    return Effect.sync(() => lines.close())
  })
