/**
 * The Node the Node wing needs: 22.19 or newer, the floor of undici 8 and `@effect/platform-node` 4 (on older
 * Node the first HTTP request dies inside undici). Bun and Deno report the Node version they implement; Bun runs
 * HTTP on `fetch`, so only its `child_process` is used there.
 *
 * @internal
 */

/** @internal */
export const REQUIRED = [22, 19] as const

/** @internal */
export const isBun = (): boolean => typeof process.versions.bun === "string"

const isDeno = (): boolean => "Deno" in globalThis

/** Whether `version` (`22.19.0`) is at least `REQUIRED`. @internal */
export const satisfies = (version: string): boolean => {
  const [major = 0, minor = 0] = version.split(".").map(Number)
  return major > REQUIRED[0] || (major === REQUIRED[0] && minor >= REQUIRED[1])
}

/**
 * Refuse a Node older than `REQUIRED`, when the Node wing is loaded, with a message that names both versions:
 * an old Node would otherwise fail at the first HTTP call with an error from inside undici.
 *
 * @internal
 */
export const assertSupported = (): void => {
  if (isBun() || isDeno()) return
  const found = process.versions.node
  if (!satisfies(found)) {
    throw new Error(
      `@mcp-effect/client/node needs Node ${REQUIRED.join(".")} or newer; this is Node ${found}. ` +
        `Install a newer Node (https://nodejs.org), or use the portable entry "@mcp-effect/client" (connectHttp on fetch).`
    )
  }
}
