/**
 * Values at rest in a shared store: AES-256-GCM (node:crypto) with a random 96-bit IV per value and the
 * value's place (its Redis key and field) as additional authenticated data, so a value copied to another
 * user's or server's place does not open there. The key is the caller's; it never leaves the process.
 *
 * Sealed form: base64 of `iv (12) | tag (16) | ciphertext`.
 *
 * @internal
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"

/** @internal */
export interface Sealer {
  readonly seal: (plaintext: string, place: string) => string
  /** `undefined` when the value is not one this key sealed for this place (corrupted, tampered, other key). */
  readonly open: (sealed: string, place: string) => string | undefined
}

const IV_BYTES = 12
const TAG_BYTES = 16

/** A 32-byte key: raw bytes, or a base64 / hex string of 32 bytes. @internal */
export const keyBytes = (key: Uint8Array | string): Uint8Array | undefined => {
  if (typeof key !== "string") return key.length === 32 ? key : undefined
  const hex = /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, "hex") : undefined
  const bytes = hex ?? Buffer.from(key, "base64")
  return bytes.length === 32 ? bytes : undefined
}

/** @internal */
export const sealer = (key: Uint8Array): Sealer => ({
  seal: (plaintext, place) => {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv("aes-256-gcm", key, iv)
    cipher.setAAD(Buffer.from(place, "utf8"))
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")
  },
  open: (sealed, place) => {
    try {
      const bytes = Buffer.from(sealed, "base64")
      if (bytes.length < IV_BYTES + TAG_BYTES) return undefined
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES))
      decipher.setAAD(Buffer.from(place, "utf8"))
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8")
    } catch {
      return undefined
    }
  }
})

/** A name that can be used in a key without revealing it (a user id, a server URL). @internal */
export const digest = (value: string): string => createHash("sha256").update(value, "utf8").digest("base64url").slice(0, 22)
