/**
 * `jose` loaded on first use: only DPoP and `private_key_jwt` need it, and it is some fifty modules to load.
 *
 * @internal
 */
let loaded: Promise<typeof import("jose")> | undefined

/** @internal */
export const loadJose = (): Promise<typeof import("jose")> => (loaded ??= import("jose"))
