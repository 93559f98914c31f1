/**
 * The orders every list of the Secrets service is answered in (seed 001 §4), decided here once so that every store
 * may return rows in whatever order is cheapest and every front end sees the same one. Strings compare by UTF-16
 * code units, whatever the locale or the database's collation, so that `B` sorts before `a` everywhere.
 *
 * The one order a store keeps itself is the audit log's, because it answers that list a page at a time.
 */
import { DEFAULT_ENVIRONMENTS } from "./names.js"

/** UTF-16 code unit order. */
export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Newest first by creation time (epoch milliseconds), then by id, so records of one instant keep one order. */
export const newestFirst = <A extends { readonly createdAt: number; readonly id: string }>(a: A, b: A): number =>
  b.createdAt - a.createdAt || byCodeUnits(b.id, a.id)

/** Projects by slug. */
export const bySlug = <A extends { readonly project: { readonly slug: string } }>(a: A, b: A): number =>
  byCodeUnits(a.project.slug, b.project.slug)

/** Where a name stands among the environments every project starts with; the others come after them. */
const stage = (name: string): number => {
  const index = (DEFAULT_ENVIRONMENTS as ReadonlyArray<string>).indexOf(name)
  return index === -1 ? DEFAULT_ENVIRONMENTS.length : index
}

/**
 * Environments in the order a change travels: the three every project starts with as the seed names them
 * (development, staging, production), then any others by name. By name alone, production came between
 * development and staging in every grid and list.
 */
export const byStage = <A extends { readonly name: string }>(a: A, b: A): number =>
  stage(a.name) - stage(b.name) || byCodeUnits(a.name, b.name)

/** Secrets and export entries by key. */
export const byKey = <A extends { readonly key: string }>(a: A, b: A): number => byCodeUnits(a.key, b.key)

/** Versions of one secret, newest first. */
export const byVersionDescending = <A extends { readonly version: number }>(a: A, b: A): number => b.version - a.version

/** Members: the owner first, then by joining time (and by id, for people who joined in the same instant). */
export const membersOrder = <A extends { readonly role: string; readonly createdAt: number; readonly userId: string }>(
  a: A,
  b: A,
): number =>
  Number(b.role === "owner") - Number(a.role === "owner") ||
  a.createdAt - b.createdAt ||
  byCodeUnits(a.userId, b.userId)

/** A sorted copy: stores answer read-only arrays. */
export const sorted = <A>(items: ReadonlyArray<A>, order: (a: A, b: A) => number): Array<A> => [...items].sort(order)
