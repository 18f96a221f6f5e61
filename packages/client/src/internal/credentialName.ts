/**
 * A name that says its value is a credential (`api_key`, `access_token`, `client-secret`, `password`, `auth`,
 * `Authorization`, `X-API-Key`, `sig`). A card's URL variable or query parameter of such a name is never taken
 * from the card (a card is a public document: a credential in it is a leak or a trap), and a command-line value
 * of such a flag is not part of a pin scope (it would be written to the pins file and printed).
 *
 * @internal
 */
export const credentialLike = (name: string): boolean =>
  /(?:^|[_\-.])(?:token|key|apikey|secret|password|passwd|pwd|auth|authorization|credentials?|signature|sig|session)$/i
    .test(name) ||
  /[a-z](?:Key|Token|Secret|Password|Auth|Signature)$/.test(name) ||
  name.toLowerCase() === "code"
