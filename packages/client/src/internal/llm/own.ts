/**
 * Objects built from keys a server (or a model) chose. `obj[key] = value` with the key `__proto__` replaces the
 * object's prototype instead of adding a property, and a read of `constructor` or `toString` finds
 * `Object.prototype`'s: these helpers write and read own properties only, as `JSON.parse` does. A `__proto__`
 * key a server declares is kept, as the own property it was on the wire.
 *
 * @internal
 */

/** Add `key` as an own, enumerable data property, whatever the key. @internal */
export const setOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** The own property `key` of `source`, `undefined` when it has none (never an inherited one). @internal */
export const getOwn = (source: Readonly<Record<string, unknown>>, key: string): unknown =>
  Object.hasOwn(source, key) ? source[key] : undefined
