import { Link } from "../../ui/router.js"

export const NotFound = () => (
  <section>
    <h1>Page not found</h1>
    <p>
      There is no page at this address. <Link href="/projects">Go to your projects</Link>.
    </p>
  </section>
)
