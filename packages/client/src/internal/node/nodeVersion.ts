/**
 * The Node the Node wing needs: 22.19 or newer, the floor of undici 8 and `@effect/platform-node` 4 (undici 8
 * does not even load on Node 20: a `TypeError` from inside it). Bun and Deno report the Node version they
 * implement; Bun runs HTTP on `fetch`, so only its `child_process` is used there.
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
 * Why this runtime cannot run the Node wing's transports, naming both versions, or `undefined` when it can (Bun
 * and Deno always can). Asked when a transport layer is built, never at import (the package is declared free of
 * side effects), and before undici is loaded, whose own error on an old Node names neither version.
 *
 * @internal
 */
export const unsupported = (): string | undefined => {
  if (isBun() || isDeno()) return undefined
  const found = process.versions.node
  return satisfies(found)
    ? undefined
    : `@mcp-effect/client/node needs Node ${REQUIRED.join(".")} or newer; this is Node ${found}. ` +
      `Install a newer Node (https://nodejs.org), or use the portable entry "@mcp-effect/client" (connectHttp on fetch).`
}
