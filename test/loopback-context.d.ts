// Values the globalSetup files provide to tests (read with `inject` from 'vitest').
declare module 'vitest' {
  export interface ProvidedContext {
    /** Origin of the loopback HTTP server of test/loopback-server.ts, e.g. http://127.0.0.1:41234. */
    loopbackOrigin: string;
    /** Deliveries signed or checked by the providers' own libraries, by preset id (test/signatures/provider-signers.ts). */
    providerDeliveries: import('./signatures/provider-signers').ProviderDeliveries;
  }
}
export {};
