/**
 * The fallback snapshot of `coffer secrets run --fallback FILE`: the last environment fetched, encrypted so that
 * only the holder of the API key that fetched it can open it. Mode 0600, written atomically.
 *
 * The key is HKDF-SHA256 of the API key (32 random bytes behind its prefix, so no slow hash is needed) with a
 * random salt per write; the cipher is AES-256-GCM, with the service URL, project and environment as associated
 * data, so a snapshot cannot be passed off as another environment's. Nothing here says whether a snapshot may be
 * used: `run` decides that (only when the service is unreachable or failing, never after 401, 403 or 404).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { authFailure, usage } from "./failure.js"
import { writePrivateFile } from "./privateFile.js"

const INFO = "coffer secrets snapshot v1"

const SnapshotFile = Schema.Struct({
  format: Schema.Literal("coffer-snapshot-1"),
  url: Schema.String,
  project: Schema.String,
  environment: Schema.String,
  savedAt: Schema.String,
  salt: Schema.String,
  iv: Schema.String,
  tag: Schema.String,
  data: Schema.String,
})

export interface Snapshot {
  readonly url: string
  readonly project: string
  readonly environment: string
  readonly savedAt: string
  readonly values: Readonly<Record<string, string>>
}

const keyFor = (token: string, salt: Buffer) => Buffer.from(hkdfSync("sha256", token, salt, INFO, 32))

const associatedData = (where: { url: string; project: string; environment: string }) =>
  Buffer.from(JSON.stringify([where.url, where.project, where.environment]))

/** The file's text for `snapshot`, sealed under `token`. */
export const sealSnapshot = (token: string, snapshot: Snapshot): string => {
  const salt = randomBytes(16)
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", keyFor(token, salt), iv)
  cipher.setAAD(associatedData(snapshot))
  const data = Buffer.concat([cipher.update(JSON.stringify(snapshot.values), "utf8"), cipher.final()])
  const file: typeof SnapshotFile.Type = {
    format: "coffer-snapshot-1",
    url: snapshot.url,
    project: snapshot.project,
    environment: snapshot.environment,
    savedAt: snapshot.savedAt,
    salt: salt.toString("base64"),
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    data: data.toString("base64"),
  }
  return `${JSON.stringify(file)}\n`
}

export const saveSnapshot = (file: string, token: string, snapshot: Snapshot) =>
  writePrivateFile(file, sealSnapshot(token, snapshot), { createDirectory: true })

/** Opens the snapshot in `file` with `token`; one that is missing, damaged or sealed under another key fails. */
export const loadSnapshot = (file: string, token: string) =>
  Effect.gen(function* () {
    if (!existsSync(file))
      return yield* usage(`no snapshot at ${file}: run once with --fallback while the service answers`)
    const stored = yield* Effect.try({
      try: () => JSON.parse(readFileSync(file, "utf8")) as unknown,
      catch: () => usage(`${file} is not a coffer snapshot`),
    }).pipe(
      Effect.flatMap((raw) =>
        Schema.decodeUnknownEffect(SnapshotFile)(raw).pipe(
          Effect.mapError(() => usage(`${file} is not a coffer snapshot`)),
        ),
      ),
    )
    const values = yield* Effect.try({
      try: () => {
        const decipher = createDecipheriv(
          "aes-256-gcm",
          keyFor(token, Buffer.from(stored.salt, "base64")),
          Buffer.from(stored.iv, "base64"),
        )
        decipher.setAAD(associatedData(stored))
        decipher.setAuthTag(Buffer.from(stored.tag, "base64"))
        const plain = Buffer.concat([decipher.update(Buffer.from(stored.data, "base64")), decipher.final()])
        return JSON.parse(plain.toString("utf8")) as Record<string, string>
      },
      catch: () => authFailure(`the snapshot ${file} cannot be opened with this API key`),
    })
    return {
      url: stored.url,
      project: stored.project,
      environment: stored.environment,
      savedAt: stored.savedAt,
      values,
    }
  })
