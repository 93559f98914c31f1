import { describe, expect, it } from "vitest"
import { fillTemplate, keysOf, parseTemplate } from "./template.js"

describe("templates", () => {
  it("fills each reference with its value as it is, or as a JSON string with | json", () => {
    const template = parseTemplate(
      "url: {{ coffer:DB_URL }}\nkey: {{coffer:PEM|json}}\nagain: {{  coffer:DB_URL  |  json  }}\n",
    )
    expect(keysOf(template)).toEqual(["DB_URL", "PEM"])
    expect(template.unfillable).toEqual([])
    const pem = '-----BEGIN KEY-----\nab"c\n-----END KEY-----'
    expect(fillTemplate(template, { DB_URL: "postgres://h/db", PEM: pem })).toBe(
      `url: postgres://h/db\nkey: ${JSON.stringify(pem)}\nagain: "postgres://h/db"\n`,
    )
  })

  it("leaves other template languages' double braces as they are", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions' syntax, in a plain string on purpose
    const text = "port: {{ .Values.port }}\ntoken: ${{ secrets.TOKEN }}\nname: {{ name }}\nbraces: { {coffer:A} }\n"
    const template = parseTemplate(text)
    expect(template.references).toEqual([])
    expect(template.unfillable).toEqual([])
    expect(fillTemplate(template, {})).toBe(text)
  })

  it("fills a value holding what looks like a reference once, without reading it as one", () => {
    const template = parseTemplate("{{ coffer:A }}{{ coffer:B }}")
    expect(fillTemplate(template, { A: "{{ coffer:B }}", B: "$&" })).toBe("{{ coffer:B }}$&")
  })

  it("allows blanks around the key and the filter", () => {
    const template = parseTemplate("{{coffer: A }}{{ \tcoffer:\tA\t|\tjson\t}}")
    expect(template.unfillable).toEqual([])
    expect(fillTemplate(template, { A: "v" })).toBe('v"v"')
  })

  it("refuses a reference that is not whole, rather than leaving it in the output", () => {
    const template = parseTemplate(
      "a: {{ coffer:A\nb: {{ coffer:A | json | json }}\nc: {{ coffer:A }\nd: {{ coffer:A }}",
    )
    expect(template.unfillable).toEqual([
      { line: 1, problem: "{{ coffer:A is not a whole reference ({{ coffer:KEY }} or {{ coffer:KEY | json }})" },
      {
        line: 2,
        problem: "{{ coffer:A | json | json }} is not a whole reference ({{ coffer:KEY }} or {{ coffer:KEY | json }})",
      },
      { line: 3, problem: "{{ coffer:A } is not a whole reference ({{ coffer:KEY }} or {{ coffer:KEY | json }})" },
    ])
    expect(keysOf(template)).toEqual(["A"])
  })

  it("names each reference it cannot fill with its line", () => {
    const template = parseTemplate("a\n{{ coffer: }}\n{{ coffer:BAD/KEY }} {{ coffer:A | yaml }}\n{{ coffer:.. }}")
    expect(template.unfillable).toEqual([
      { line: 2, problem: "{{ coffer: }} names no key" },
      { line: 3, problem: "{{ coffer:BAD/KEY }} does not name a secret key" },
      { line: 3, problem: '{{ coffer:A | yaml }}: no filter "yaml" (there is | json)' },
      { line: 4, problem: "{{ coffer:.. }} does not name a secret key" },
    ])
  })
})
