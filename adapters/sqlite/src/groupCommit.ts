/**
 * Group commit: the transactions one turn of the event loop runs on the lane share one SQLite transaction, committed
 * once when the turn ends.
 *
 * A commit is most of what a small transaction costs here: taking and dropping the write lock, and writing each page
 * it changed to the write-ahead log, two system calls a page. Under load the transactions of one turn (an audited
 * read each, or a write each) change mostly the same pages (the audit log's newest leaf and index pages), so one
 * commit for all of them writes those pages once; it also lets the log grow more slowly, so checkpoints come less
 * often (issue 10).
 *
 * The first transaction of a turn begins the database transaction (`begin immediate`), and its end is scheduled for
 * the end of the turn (`setImmediate`). Each transaction is a savepoint in it: undone alone when it fails, kept when
 * it succeeds. None of them answers before the shared commit has succeeded: they wait for it (`settled`), and when it
 * fails every one of them fails, so no caller is told of work the database then drops. Statements that only read run
 * meanwhile on another connection, which sees committed data only; nothing outside the transaction ever reads what
 * it has not committed yet.
 *
 * A transaction that awaits while on the lane keeps the others out until it leaves (they queue for the lock), and
 * the commit waits for it. Without a connection for reads (`:memory:`, where a second connection would open another
 * database) there is nothing to share a commit safely with, and each transaction commits as it leaves.
 */
import type { LaneMember, Tables } from "@coffer/adapter-sql"
import type { CompiledQuery, Kysely, QueryResult } from "kysely"
import type { Lock } from "./lock.js"

/** What the group needs of the writing connection. */
export interface Writer {
  /** Runs a statement without parameters or rows (`begin immediate`, `savepoint …`). */
  readonly raw: (sql: string) => void
  readonly execute: <R>(query: CompiledQuery<R>) => QueryResult<R>
  /** Whether SQLite still has a transaction open: some errors roll it back whole, at once. */
  readonly inTransaction: () => boolean
  readonly db: () => Kysely<Tables>
}

/** The end of the turn, as the runtime has it when this module loads (a test's fake timers do not reach it). */
const atTurnEnd: (run: () => void) => void = globalThis.setImmediate ?? ((run) => setTimeout(run, 0))

const SAVEPOINT = "coffer_member"

interface Group {
  /** The member whose statements run now; the group cannot close, nor take another, until it leaves. */
  active: boolean
  /** Whether the end of the turn came while a member was active: the group closes when it leaves, taking nobody more. */
  closeWhenLeft: boolean
  /** How the group ended: absent while open, `null` when it ended as asked, the error when it could not. */
  outcome: { readonly error: unknown } | null | undefined
  readonly waiters: Array<(error: unknown) => void>
}

export interface GroupCommit {
  /** A transaction on the lane: the turn's group, joined or begun; `undefined` when the lock is held otherwise. */
  readonly enter: () => LaneMember | undefined
}

/**
 * The lane's transactions on `writer`, under `lock`. `shared`: whether the transactions of one turn share a commit;
 * when not, each transaction is a group of its own, committed as it leaves.
 */
export const groupCommit = (writer: Writer, lock: Lock, shared: boolean): GroupCommit => {
  let open: Group | undefined

  const close = (group: Group, keep: boolean) => {
    if (open !== group) return
    let error: unknown
    try {
      writer.raw(keep ? "commit" : "rollback")
    } catch (cause) {
      error = cause
      // A commit that failed (a deferred constraint, a full disk) leaves the transaction open, or already gone.
      try {
        if (writer.inTransaction()) writer.raw("rollback")
      } catch {
        // Nothing more can be done here; the lock is released and the next transaction begins afresh.
      }
    }
    group.outcome = error === undefined ? null : { error }
    open = undefined
    lock.unlock()
    for (const waiter of group.waiters.splice(0)) waiter(group.outcome?.error)
  }

  const closeAtTurnEnd = (group: Group) => {
    if (group.active) group.closeWhenLeft = true
    else close(group, true)
  }

  const member = (group: Group): LaneMember => {
    let left = false
    return {
      execute: writer.execute,
      db: writer.db(),
      leave: (keep) => {
        if (left) return
        if (shared) {
          if (keep) writer.raw(`release ${SAVEPOINT}`)
          else {
            try {
              writer.raw(`rollback to ${SAVEPOINT}`)
              writer.raw(`release ${SAVEPOINT}`)
            } catch {
              // SQLite rolled the whole transaction back already; the commit will fail for every member.
            }
          }
        }
        left = true
        group.active = false
        if (!shared) close(group, keep)
        else if (group.closeWhenLeft) atTurnEnd(() => closeAtTurnEnd(group))
      },
      settled: (done) => {
        if (group.outcome === undefined) group.waiters.push(done)
        else done(group.outcome?.error)
      },
    }
  }

  const enter = (): LaneMember | undefined => {
    let group = open
    if (group === undefined) {
      if (!lock.tryLock()) return undefined
      try {
        writer.raw("begin immediate")
      } catch (error) {
        lock.unlock()
        throw error
      }
      group = { active: false, closeWhenLeft: false, outcome: undefined, waiters: [] }
      open = group
      if (shared) {
        const begun = group
        atTurnEnd(() => closeAtTurnEnd(begun))
      }
    } else if (group.active || group.closeWhenLeft || !writer.inTransaction()) {
      // Taken by a member that awaits, past its turn (a stream of members that await would keep it open for ever),
      // or rolled back whole by an error: wait for the lock like everyone else.
      return undefined
    }
    if (shared) writer.raw(`savepoint ${SAVEPOINT}`)
    group.active = true
    return member(group)
  }

  return { enter }
}
