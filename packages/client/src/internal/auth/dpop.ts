/**
 * DPoP (RFC 9449): one key pair per authorization, a fresh proof for every request to the MCP server (with
 * `ath`, the server's nonce when it gave one), and oauth4webapi's handle for the token endpoint.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as jose from "jose"
import * as oauth from "oauth4webapi"
import { loadJose } from "./jose.js"
import { textOfBase64Url } from "../bytes.js"

type CryptoKeyPair = Awaited<ReturnType<typeof oauth.generateKeyPair>>
type CryptoKey = CryptoKeyPair["privateKey"]

/** @internal */
export interface DpopKey {
  readonly keyPair: CryptoKeyPair
  readonly jwk: jose.JWK
  /** For token endpoint requests (oauth4webapi keeps the AS nonce per origin). */
  readonly handle: oauth.DPoPHandle
  /** The MCP server's latest `DPoP-Nonce`. */
  rsNonce: string | undefined
}

/** @internal */
export const makeKey = (alg: string): Effect.Effect<DpopKey> =>
  Effect.promise(async () => {
    const keyPair = await oauth.generateKeyPair(alg, { extractable: false })
    const jwk = await (await loadJose()).exportJWK(keyPair.publicKey)
    return { keyPair, jwk, handle: oauth.DPoP({}, keyPair), rsNonce: undefined }
  })

/** The algorithm to use: ES256 when offered (or nothing is said), else the first one we can make. @internal */
export const chooseAlg = (offered: ReadonlyArray<string> | undefined): string | undefined => {
  const usable = ["ES256", "EdDSA", "ES384", "PS256", "RS256"]
  if (offered === undefined || offered.length === 0) return undefined
  return usable.find((alg) => offered.includes(alg))
}

const sha256 = async (text: string) => {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))
  return (await loadJose()).base64url.encode(new Uint8Array(digest))
}

/** A proof for one request to the MCP server. @internal */
export const proof = (key: DpopKey, method: string, url: URL, accessToken: string): Effect.Effect<string> =>
  Effect.promise(async () => {
    const alg = algOf(key.keyPair.privateKey)
    const claims: jose.JWTPayload = {
      htm: method,
      htu: `${url.origin}${url.pathname}`,
      jti: crypto.randomUUID(),
      ath: await sha256(accessToken)
    }
    if (key.rsNonce !== undefined) claims["nonce"] = key.rsNonce
    const { SignJWT } = await loadJose()
    return new SignJWT(claims)
      .setProtectedHeader({ alg, typ: "dpop+jwt", jwk: key.jwk })
      .setIssuedAt()
      .sign(key.keyPair.privateKey)
  })

/** The `nonce` claim of a proof this client made, if it carried one. @internal */
export const proofNonce = (proof: string | undefined): string | undefined => {
  const payload = proof?.split(".")[1]
  if (payload === undefined) return undefined
  try {
    const claims: unknown = JSON.parse(textOfBase64Url(payload))
    return typeof claims === "object" && claims !== null && "nonce" in claims && typeof claims.nonce === "string"
      ? claims.nonce
      : undefined
  } catch {
    return undefined
  }
}

const algOf = (key: CryptoKey): string => {
  const algorithm = key.algorithm as { name: string; namedCurve?: string; hash?: { name: string } }
  if (algorithm.name === "Ed25519") return "EdDSA"
  if (algorithm.name === "RSA-PSS") return "PS256"
  if (algorithm.name === "RSASSA-PKCS1-v1_5") return "RS256"
  return algorithm.namedCurve === "P-384" ? "ES384" : "ES256"
}
