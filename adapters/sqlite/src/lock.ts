/**
 * One holder at a time, first come first served; `tryLock` succeeds only when nobody holds or waits, so a caller
 * that cannot wait never jumps the queue. `unlock` hands the lock straight to the next waiter.
 */
export class Lock {
  #held = false
  readonly #waiters: Array<() => void> = []

  tryLock(): boolean {
    if (this.#held || this.#waiters.length > 0) return false
    this.#held = true
    return true
  }

  lock(): Promise<void> {
    if (this.tryLock()) return Promise.resolve()
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  unlock(): void {
    const next = this.#waiters.shift()
    if (next === undefined) this.#held = false
    else next()
  }
}
