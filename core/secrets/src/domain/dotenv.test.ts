/**
 * The `.env` export against its two real readers: bash, which must get every value back exactly and run
 * nothing, and the `dotenv` package, which must get back exactly what seed 001 §4 promises. Files are
 * written to disk and read back, as a user's would be.
 */
import { spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import dotenv from "dotenv"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { dotenvValue, type ExportEntry, toDotenv, toJsonExport, toJsonExportText } from "./dotenv.js"
import { isSecretKey } from "./names.js"

const scratch = mkdtempSync(join(tmpdir(), "coffer-dotenv-"))
/** Where an injected command would leave its mark; unique per run so a leftover cannot fake a pass. */
const pwned = join(tmpdir(), `pwned-${randomUUID()}`)
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true })
  // Only there if a test already failed on it.
  rmSync(pwned, { force: true })
})

// Plain C, and UTF-8 where bash treats multibyte characters as characters.
const LOCALES = ["C", "C.UTF-8"] as const

/**
 * Sources `text` in a fresh directory with `set -a` and answers the variables `names`, in order. The
 * environment is empty, and `--norc` matters: bash reads ~/.bashrc even for `-c` when it believes it was
 * started by sshd, which would let the machine's shell setup into the test.
 */
const sourceInBash = (text: string, names: ReadonlyArray<string>, locale: (typeof LOCALES)[number]) => {
  const dir = mkdtempSync(join(scratch, "bash-"))
  writeFileSync(join(dir, "x.env"), text)
  const printed = names.map((name) => `"$${name}"`).join(" ")
  const run = spawnSync("bash", ["--norc", "--noprofile", "-c", `set -a; . ./x.env; printf '%s\\0' ${printed}`], {
    cwd: dir,
    env: { LC_ALL: locale },
    stdio: ["ignore", "pipe", "pipe"],
  })
  const files = readdirSync(dir)
  rmSync(dir, { recursive: true })
  return {
    status: run.status,
    stderr: run.stderr.toString("utf8"),
    values: run.stdout.toString("utf8").split("\0").slice(0, names.length),
    // Anything besides x.env means the file ran something (a redirection, a `touch`).
    files,
  }
}

/** Parses `text` as the `dotenv` package does a file: from the bytes, with its default parser and `fast`. */
const parseWithDotenv = (text: string) => {
  const bytes = Buffer.from(text, "utf8")
  return [dotenv.parse(bytes), dotenv.parse(bytes, { fast: true })] as const
}

const EXPORT_CHARACTERS = /[\\"$`]/

// Each value is followed by an ordinary entry, so a value that swallowed the next line would show.
const corpus: ReadonlyArray<readonly [string, string]> = [
  ["empty", ""],
  ["a plain word", "hunter2"],
  ["bare punctuation", "user@host:5432/db_1.x,y=z%20+-"],
  ["base64 padding", "dGVzdA=="],
  ["starting with =", "=x"],
  ["starting with -", "-rf"],
  ["a space", "hello world"],
  ["trailing spaces", "value   "],
  ["leading spaces", "   value"],
  ["only spaces", "   "],
  ["a # inside", "abc#def"],
  ["a leading #", "#not a comment"],
  ["a space then #", "x #y"],
  ["$VAR", "$HOME"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, meant literally
  ["${VAR}", "${PATH}x"],
  ["command substitution", `$(touch ${pwned})`],
  ["backticks", `\`touch ${pwned}\``],
  ["command separators", `a; touch ${pwned} | cat && touch ${pwned}`],
  ["a redirection", "> out.txt"],
  ["a tilde", "~/x"],
  ["a glob", "*"],
  ["braces", "{a,b}"],
  ["history expansion", "!!"],
  ["an URL with a query", "https://example.com/?a=1&b=2"],
  ["double quotes", 'say "hi"'],
  ["backslashes", "C:\\path\\to\\file"],
  ["a trailing backslash", "ends with \\"],
  ["a literal backslash-n", "a\\nb"],
  ["a newline", "line1\nline2"],
  ["a trailing newline", "x\n"],
  ["only a newline", "\n"],
  ["a line that looks like an assignment", "x\nNEXT=injected"],
  ["a tab", "a\tb"],
  ["CRLF", "a\r\nb"],
  ["a lone CR", "a\rb"],
  ["unicode", "pässwörd 🔑 秘密"],
  ["line and paragraph separators", "a\u2028b\u2029c"],
  ["a single quote", "it's"],
  ["a single quote with command substitution", `'$(touch ${pwned})'`],
  ["a single quote with backticks", `it's \`touch ${pwned}\``],
  ["a single quote with $VAR", "it's $HOME"],
  ["a single quote and a backslash before it", "it\\'s"],
  ["a single quote and a trailing backslash", "it's\\"],
  ["every special character", "'\"$\\`\n\t #!*~;&|<>(){}"],
  ["a quote that tries to close early", "'\nNEXT=injected\n'"],
  ["a single quote and a newline", "it's\nhere"],
  ["a single quote and CRLF", "it's\r\nhere"],
]

describe("toDotenv", () => {
  it("writes the forms of the four rules, one line each, each ending in \\n", () => {
    expect(
      toDotenv([
        { key: "BARE", value: "postgres://u:p@db:5432/app" },
        { key: "EMPTY", value: "" },
        { key: "QUOTED", value: "hello world\n$HOME" },
        { key: "DOUBLE", value: `it's "$x" \`y\` \\` },
        { key: "not a name", value: "x" },
      ]),
    ).toBe(
      'BARE=postgres://u:p@db:5432/app\nEMPTY=\nQUOTED=\'hello world\n$HOME\'\nDOUBLE="it\'s \\"\\$x\\" \\`y\\` \\\\"\n',
    )
    expect(toDotenv([])).toBe("")
  })

  it("quotes every character outside the bare set", () => {
    for (const char of ' #!"$&()*;<>?[]^`{|}~\\\t\né')
      expect(dotenvValue(`a${char}`), JSON.stringify(char)).toMatch(/^['"]/)
  })

  it("writes every key the naming rules allow, and leaves out only those they refuse (rule 4)", () => {
    const allowed = ["A", "_", "lower_case", "my-key", "a.b", "1ABC", "-x", ".env", "X".repeat(256)]
    // Only data stored by an earlier implementation can hold these.
    const refused = ["", "KEY ", "ключ", "A=B", "$A", "a\nb", ".", "..", "X".repeat(257)]
    for (const key of allowed) expect(isSecretKey(key), key).toBe(true)
    for (const key of refused) expect(isSecretKey(key), key).toBe(false)
    const text = toDotenv([...allowed, ...refused].map((key) => ({ key, value: "v" })))
    expect(text).toBe(allowed.map((key) => `${key}=v\n`).join(""))
  })

  it("gives dotenv every allowed key; bash runs nothing for a key no shell variable can take, and loads the rest", () => {
    const entries = [
      { key: "my-key", value: `$(touch ${pwned})` },
      { key: "a.b", value: "/bin/true" },
      { key: "1ABC", value: "v" },
      { key: "OK", value: "after" },
    ]
    const text = toDotenv(entries)
    for (const parsed of parseWithDotenv(text))
      expect({ ...parsed }).toEqual({ "my-key": `$(touch ${pwned})`, "a.b": "/bin/true", "1ABC": "v", OK: "after" })
    for (const locale of LOCALES) {
      const result = sourceInBash(text, ["OK"], locale)
      expect(result.values).toEqual(["after"])
      // Each reported as a command it could not find (by its path, for a word holding a `/`), and none run.
      expect(result.stderr).toMatch(/line 1: my-key=.*: No such file or directory/)
      expect(result.stderr).toMatch(/line 2: a\.b=\/bin\/true: No such file or directory/)
      expect(result.stderr).toMatch(/line 3: 1ABC=v: command not found/)
      expect(result.files).toEqual(["x.env"])
      expect(existsSync(pwned)).toBe(false)
    }
  })

  describe.each(corpus)("a value with %s", (_, value) => {
    const text = toDotenv([
      { key: "KEY", value },
      { key: "NEXT", value: "after" },
    ])

    it.each(LOCALES)("comes back exactly from bash (LC_ALL=%s), and nothing runs", (locale) => {
      const result = sourceInBash(text, ["KEY", "NEXT"], locale)
      expect(result.stderr).toBe("")
      expect(result.status).toBe(0)
      expect(result.values).toEqual([value, "after"])
      expect(result.files).toEqual(["x.env"])
      expect(existsSync(pwned)).toBe(false)
    })

    it("comes back from the dotenv package exactly, but for the measured exceptions", () => {
      for (const parsed of parseWithDotenv(text)) {
        expect(Object.keys(parsed)).toEqual(["KEY", "NEXT"])
        expect(parsed.NEXT).toBe("after")
        if (value.includes("'") && EXPORT_CHARACTERS.test(value)) {
          // Rule 3 with escapes: dotenv keeps the backslashes (seed 001 §4); only bash is promised exactness.
          expect(parsed.KEY).not.toBe(value)
        } else if (value.includes("\r")) {
          // Measured: dotenv turns every CR and CRLF of the file into LF before it parses, quotes or not.
          expect(parsed.KEY).toBe(value.replace(/\r\n?/g, "\n"))
        } else {
          expect(parsed.KEY).toBe(value)
        }
      }
    })
  })

  it("keeps the backslashes of a double-quoted value under dotenv, as the seed warns", () => {
    const text = toDotenv([{ key: "KEY", value: `it's $5 "off"` }])
    expect(text).toBe('KEY="it\'s \\$5 \\"off\\""\n')
    for (const parsed of parseWithDotenv(text)) expect(parsed.KEY).toBe('it\'s \\$5 \\"off\\"')
  })

  it("loses a value ending in a backslash under dotenv, when a later line lets it run on", () => {
    // dotenv reads `\'` inside single quotes as an escaped quote, so the closing quote after a trailing
    // backslash does not close: the value runs on to the next quote that ends a line. Bash is exact.
    const entries = [
      { key: "KEY", value: "ends with \\" },
      { key: "NEXT", value: " # x" },
    ]
    const text = toDotenv(entries)
    expect(text).toBe("KEY='ends with \\'\nNEXT=' # x'\n")
    for (const parsed of parseWithDotenv(text)) expect({ ...parsed }).toEqual({ KEY: "ends with \\'\nNEXT=" })
    for (const locale of LOCALES)
      expect(sourceInBash(text, ["KEY", "NEXT"], locale).values).toEqual(["ends with \\", " # x"])
  })

  it("loses only NUL in bash, which no shell variable can hold; dotenv and JSON keep it", () => {
    const entries = [
      { key: "KEY", value: "a\0b" },
      { key: "NEXT", value: "after" },
    ]
    for (const locale of LOCALES)
      expect(sourceInBash(toDotenv(entries), ["KEY", "NEXT"], locale).values).toEqual(["ab", "after"])
    for (const parsed of parseWithDotenv(toDotenv(entries))) expect(parsed.KEY).toBe("a\0b")
    expect(toJsonExport(entries).KEY).toBe("a\0b")
  })
})

// Any code point, and strings made mostly of the characters that matter to a shell or a dotenv parser.
const anyText = fc.string({ unit: "binary", maxLength: 40 })
const trickyText = fc.string({
  unit: fc.constantFrom(...Array.from("'\"\\$`\n\r \t#=!();&|><~*{}aé🔑\u2028")),
  maxLength: 20,
})
const generatedValue = fc.oneof(anyText, trickyText)

/** Entries K0, K1, … for `values`. */
const entriesOf = (values: ReadonlyArray<string>): Array<ExportEntry> =>
  values.map((value, i) => ({ key: `K${i}`, value }))

describe("toDotenv, for generated values", () => {
  it("gives every value without ', without CR and not ending in \\ back exactly through the dotenv package", () => {
    // Rule 2 promises a literal read. Values with ' fall under rule 3, where the seed itself warns; values
    // with CR meet dotenv's line-ending normalisation, and values ending in a backslash its escaped-quote
    // reading: neither can be avoided inside single quotes (both are shown above).
    const rule2Value = generatedValue.filter(
      (text) => !text.includes("'") && !text.includes("\r") && !text.endsWith("\\"),
    )
    fc.assert(
      fc.property(fc.array(rule2Value, { minLength: 1, maxLength: 5 }), (values) => {
        const entries = entriesOf(values)
        const expected = Object.fromEntries(entries.map(({ key, value }) => [key, value]))
        for (const parsed of parseWithDotenv(toDotenv(entries))) expect({ ...parsed }).toEqual(expected)
      }),
      { numRuns: 2000 },
    )
  })

  it("gives any value back exactly through bash, and runs nothing", () => {
    // NUL is the one exception, shown above: a C string cannot hold it.
    const shellValue = generatedValue.filter((text) => !text.includes("\0"))
    fc.assert(
      fc.property(fc.array(shellValue, { minLength: 1, maxLength: 4 }), (values) => {
        const entries = entriesOf(values)
        for (const locale of LOCALES) {
          const result = sourceInBash(
            toDotenv(entries),
            entries.map(({ key }) => key),
            locale,
          )
          expect(result.stderr).toBe("")
          expect(result.values).toEqual(values)
          expect(result.files).toEqual(["x.env"])
        }
      }),
      { numRuns: 150 },
    )
    // 150 × the locales of bash processes: 5 s on a quiet box, past the default 20 s on a busy one.
  }, 60_000)
})

describe("toJsonExport", () => {
  it("maps every key to its value, keys that .env leaves out included", () => {
    const entries = [
      { key: "A", value: "1" },
      { key: "my-key", value: 'it\'s "exact"\r\n' },
      { key: "a.b", value: "" },
    ]
    expect(JSON.parse(JSON.stringify(toJsonExport(entries)))).toEqual({
      A: "1",
      "my-key": 'it\'s "exact"\r\n',
      "a.b": "",
    })
  })

  it("treats __proto__, constructor and toString as ordinary keys", () => {
    const exported = toJsonExport([
      { key: "__proto__", value: "p" },
      { key: "constructor", value: "c" },
      { key: "toString", value: "t" },
    ])
    expect(Object.getPrototypeOf(exported)).toBe(null)
    expect(Object.keys(exported)).toEqual(["__proto__", "constructor", "toString"])
    const json = JSON.stringify(exported)
    expect(json).toBe('{"__proto__":"p","constructor":"c","toString":"t"}')
    // JSON.parse defines "__proto__" as an own property, so a client reading the export sees it too.
    expect(Object.getOwnPropertyDescriptor(JSON.parse(json), "__proto__")?.value).toBe("p")
  })

  it("is what a real file round-trip gives back", () => {
    const path = join(scratch, "export.json")
    const entries = corpus.map(([, value], i) => ({ key: `K${i}`, value }))
    writeFileSync(path, JSON.stringify(toJsonExport(entries)))
    const read = JSON.parse(readFileSync(path, "utf8"))
    for (const { key, value } of entries) expect(read[key]).toBe(value)
  })
})

describe("toJsonExportText", () => {
  // Keys that JSON.stringify orders specially (array indexes, written first and ascending) or nearly so.
  const key = fc.oneof(
    fc.constantFrom("0", "1", "2", "10", "01", "-1", "1.5", "4294967294", "4294967295", "__proto__", "constructor"),
    fc.nat().map(String),
    fc.string({ maxLength: 8 }),
    fc.string({ unit: "grapheme", maxLength: 6 }),
  )
  const entry = fc.record({ key, value: fc.oneof(fc.string(), fc.string({ unit: "binary" })) })

  it("is JSON.stringify of toJsonExport, byte for byte, repeated keys and array-index keys included", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 30 }), (entries) => {
        expect(toJsonExportText(entries)).toBe(JSON.stringify(toJsonExport(entries)))
      }),
      { numRuns: 2_000 },
    )
  })

  it("writes the whole corpus as JSON.stringify does", () => {
    const entries = corpus.map(([, value], i) => ({ key: i % 3 === 0 ? String(i) : `K${i}`, value }))
    expect(toJsonExportText(entries)).toBe(JSON.stringify(toJsonExport(entries)))
    expect(toJsonExportText([])).toBe("{}")
  })
})
