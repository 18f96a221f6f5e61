/**
 * Bytes and text the same way on every runtime (browsers and Workers have no `Buffer`).
 *
 * @internal
 */

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** Standard base64 of bytes. @internal */
export const base64OfBytes = (bytes: Uint8Array): string => {
  let binary = ""
  // In slices: `String.fromCharCode` takes its arguments on the stack.
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000))
  }
  return btoa(binary)
}

/** Standard base64 of a string's UTF-8 bytes. @internal */
export const base64OfText = (text: string): string => base64OfBytes(encoder.encode(text))

/** The UTF-8 text of base64url (or base64) bytes; throws on characters outside either alphabet. @internal */
export const textOfBase64Url = (encoded: string): string => {
  const standard = encoded.replace(/-/g, "+").replace(/_/g, "/")
  const binary = atob(standard + "=".repeat((4 - (standard.length % 4)) % 4))
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return decoder.decode(bytes)
}

/** One array of the chunks, in order. @internal */
export const concatBytes = (chunks: ReadonlyArray<Uint8Array>): Uint8Array<ArrayBuffer> => {
  let size = 0
  for (const chunk of chunks) size += chunk.byteLength
  const all = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    all.set(chunk, at)
    at += chunk.byteLength
  }
  return all
}
