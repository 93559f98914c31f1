import { Link } from "../../ui/router.js"

export const NotFound = () => (
  <section>
    <h1>Page not found</h1>
    <p>
      There is no page at this address. <Link href="/platforms">Go to the platforms</Link>.
    </p>
  </section>
)
