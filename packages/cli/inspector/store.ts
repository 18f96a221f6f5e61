/**
 * The page's state: the servers (mutable records, see `connection.ts`) and a version that changes whenever
 * any of them does. Views re-render on a change, at most once per animation frame.
 */
import { useEffect, useState } from "preact/hooks"

let version = 0
let scheduled = false
const listeners = new Set<(version: number) => void>()

/** Something changed: re-render on the next frame. */
export const changed = (): void => {
  if (scheduled) return
  scheduled = true
  setTimeout(() => {
    scheduled = false
    version++
    for (const listener of listeners) listener(version)
  }, 16)
}

/** Re-render the calling component on every change. */
export const useStore = (): number => {
  const [seen, setSeen] = useState(version)
  useEffect(() => {
    listeners.add(setSeen)
    return () => void listeners.delete(setSeen)
  }, [])
  return seen
}
