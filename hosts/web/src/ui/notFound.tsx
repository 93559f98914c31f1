/** A path that is no page of the app: said plainly, with the way back to the app's home. */
import type { NavItem } from "./layout.js"
import { Link } from "./router.js"

export const NotFound = ({ home }: { readonly home: NavItem }) => (
  <section>
    <h1>Page not found</h1>
    <p>
      There is no page at this address. <Link href={home.href}>{home.label}</Link>.
    </p>
  </section>
)
