/** oidc-provider ships no types: the little of it bench/oidc-provider.ts uses. */
declare module 'oidc-provider' {
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string): unknown;
  }
}
