/** The inspector page's script (see `pageAssets.ts`): supplied by the CLI bundle step. */
declare module "inspector:page" {
  const script: string
  export default script
}
