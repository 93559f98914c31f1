/**
 * `memo` without `preact/compat` (which would also install React's prop aliases app-wide): the component
 * re-renders only when one of its props changed identity. For long lists, where most rows stay as they were.
 */
import { Component, type ComponentType, h } from "preact"

const changed = (a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>) => {
  for (const key in a) if (a[key] !== b[key]) return true
  for (const key in b) if (!(key in a)) return true
  return false
}

export const memo = <P extends object>(render: ComponentType<P>): ComponentType<P> =>
  class Memo extends Component<P> {
    override shouldComponentUpdate(next: P) {
      return changed(this.props as Record<string, unknown>, next as Record<string, unknown>)
    }
    override render() {
      return h(render, this.props)
    }
  }
