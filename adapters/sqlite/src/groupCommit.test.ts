/**
 * Group commit driven by hand, turn by turn, on a real SQLite file: what the lane's callers cannot time precisely
 * enough through Effect (when a member joins relative to the end of a turn).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { afterAll, expect, it } from "vitest"
import { groupCommit } from "./groupCommit.js"
import { Lock } from "./lock.js"

const dir = mkdtempSync(join(tmpdir(), "coffer-group-commit-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const turnEnd = () => new Promise<void>((resolve) => setImmediate(resolve))

const setUp = () => {
  const filename = join(dir, `group-${Math.random().toString(36).slice(2)}.db`)
  const database = new Database(filename)
  database.exec("pragma journal_mode = WAL; create table t (key text primary key)")
  const lock = new Lock()
  const groups = groupCommit(
    {
      raw: (sql) => {
        database.prepare(sql).run()
      },
      execute: () => {
        throw new Error("not used here")
      },
      inTransaction: () => database.inTransaction,
      db: () => undefined as never,
    },
    lock,
    true,
  )
  const insert = (key: string) => database.prepare("insert into t values (?)").run(key)
  const committed = () => {
    const observer = new Database(filename, { readonly: true })
    try {
      return observer
        .prepare("select key from t order by key")
        .all()
        .map((row) => (row as { key: string }).key)
    } finally {
      observer.close()
    }
  }
  return { groups, lock, insert, committed }
}

it("takes nobody more into a transaction that outlived its turn, and commits only once its last member has left", async () => {
  const { groups, lock, insert, committed } = setUp()
  const settled: Array<unknown> = []
  const first = groups.enter()!
  insert("first")
  // The turn ends while the first member still awaits: the commit waits for it.
  await turnEnd()
  expect(committed()).toEqual([])
  first.leave(true)
  first.settled((error) => settled.push(error))
  // Between the first one leaving and the commit it set off, a newcomer waits for the lock instead of joining.
  expect(groups.enter()).toBeUndefined()
  const queued = lock.lock()
  await turnEnd()
  expect(settled).toEqual([undefined])
  expect(committed()).toEqual(["first"])
  await queued
  lock.unlock()
})

it("answers every member of a turn once the shared commit is done, and only then", async () => {
  const { groups, insert, committed } = setUp()
  const settled: Array<string> = []
  for (const key of ["a", "b", "c"]) {
    const member = groups.enter()!
    insert(key)
    member.leave(true)
    member.settled((error) => settled.push(error === undefined ? key : `${key} failed`))
  }
  expect(settled).toEqual([])
  expect(committed()).toEqual([])
  await turnEnd()
  expect(settled).toEqual(["a", "b", "c"])
  expect(committed()).toEqual(["a", "b", "c"])
})
