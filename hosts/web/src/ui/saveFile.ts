/**
 * Hands a file the page fetched to the browser's downloads, under `name`. The page fetches a download itself
 * (rather than letting a link do it) where a refusal must be said on the page: a link's failed download fails
 * quietly in the downloads bar, or is saved with the error as its content.
 */
export const saveFile = (file: Blob, name: string) => {
  const url = URL.createObjectURL(file)
  const link = document.createElement("a")
  link.href = url
  link.download = name
  link.click()
  // Given time to start reading it: the browser copies the file out of the page as the download begins.
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}
